"""A semantic compressor's model callable backed by a Pydantic AI model.

The summary is a separate, explicit model call with its own typed result
(``SemanticResult`` as the agent's output type), its own usage limits and no tools.
The material goes in as attributed data in the user prompt, never as instructions.
"""

from __future__ import annotations

try:
    from pydantic_ai import Agent
    from pydantic_ai.models import Model
    from pydantic_ai.usage import UsageLimits
except ModuleNotFoundError as exc:  # the optional extra is missing: say how to get it
    raise ModuleNotFoundError(
        f"lychd_core.integrations.pydantic_ai_semantic needs Pydantic AI ({exc}); "
        "install it with: pip install 'lychd-core[pydantic-ai]'",
        name=exc.name,
    ) from exc

from lychd_core.compression.semantic import SemanticPrompt, SemanticResult, SummaryModel
from lychd_core.digests import json_digest


def material_text(prompt: SemanticPrompt) -> str:
    """The material as attributed data: each source between boundary lines naming it."""
    parts = [f"Write at most {prompt.max_output_chars} characters of summary."]
    for node_id, content in prompt.material:
        marker = json_digest({"id": node_id})
        parts.append(f"<<<lychd:source {node_id} {marker}>>>\n{content}\n<<<lychd:end {marker}>>>")
    return "\n\n".join(parts)


def agent_summarizer(model: Model, *, usage_limits: UsageLimits | None = None) -> SummaryModel:
    """A ``SummaryModel`` that runs one tool-less Pydantic AI agent per summary."""
    agent: Agent[None, SemanticResult] = Agent(model, output_type=SemanticResult)

    def summarize(prompt: SemanticPrompt) -> SemanticResult:
        result = agent.run_sync(
            material_text(prompt),
            instructions=prompt.instructions,
            usage_limits=usage_limits or UsageLimits(request_limit=2),
        )
        return result.output

    return summarize
