"""Semantic compression through a caller-supplied model: fake model and Pydantic AI FunctionModel."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from lychd_core.assembly import ContextOrchestrator
from lychd_core.compression.runner import compress_graph, pinned
from lychd_core.compression.semantic import SemanticBudget, SemanticCompressor, SemanticPrompt, SemanticResult
from lychd_core.errors import CompactionError, CompressorFailedError
from lychd_core.integrations.pydantic_ai_semantic import agent_summarizer
from lychd_core.labels import PrivacyClass
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Trust
from tests.support.compaction import private
from tests.test_compression_assembly import big_tool_history, config


class FakeModel:
    """Deterministic: names each source it was shown."""

    def __init__(self) -> None:
        self.prompts: list[SemanticPrompt] = []

    def __call__(self, prompt: SemanticPrompt) -> SemanticResult:
        self.prompts.append(prompt)
        return SemanticResult(summary="; ".join(node_id for node_id, _ in prompt.material), omissions=("details",))


def test_fake_model_summary_is_a_validated_untrusted_compaction() -> None:
    model = FakeModel()
    semantic = SemanticCompressor(model, SemanticBudget(max_input_chars=40_000, max_output_chars=500))
    assembled = ContextOrchestrator(config()).assemble(
        run_id="r", session_id="s", query="q", history=big_tool_history(10, body=5_000), semantic=semantic
    )
    report = assembled.compression
    assert report["ran"] and report["placement"] == "never+semantic"
    (receipt,) = report["compactions"]
    assert receipt["policy"]["id"] == "semantic.summary@1"
    assert [o["kind"] for o in receipt["omissions"]] == ["semantic-summary", "model-declared"]
    node = assembled.plan.graph["semantic:summary"]
    assert node.provenance is Provenance.DERIVED_COMPACTION and node.authority is Authority.NON_AUTHORITATIVE
    assert node.trust is Trust.UNTRUSTED and node.context_class is ContextClass.COMPACTION
    assert len(model.prompts) == 1 and sum(len(c) for _, c in model.prompts[0].material) <= 40_000
    first = assembled.history[0]["parts"][0]["content"]
    assert "a model's summary" in first and "history:" in first


def test_summary_inherits_its_sources_privacy() -> None:
    from lychd_core.graph import ContextGraph, select
    from tests.support.compaction import WRITER
    from tests.support.graphs import budget, node

    nodes = [
        node(
            f"h{i}",
            400,
            *([f"h{i + 1}"] if i < 3 else []),
            content="w " * 300,
            context_class=ContextClass.HISTORY,
            provenance=Provenance.AGENT,
            recency=i,
        )
        for i in range(4)
    ]
    graph = ContextGraph(nodes)
    plan = select(graph, WRITER, budget(500))
    semantic = SemanticCompressor(FakeModel(), SemanticBudget(10_000, 300))
    outcome = compress_graph(graph, plan, [pinned(semantic)], max_chars=1_000, labels={"h0": private("secret")})
    (compaction,) = outcome.compactions
    assert compaction.label.privacy_class >= PrivacyClass.PRIVATE and "secret" in compaction.label.material_parents


@pytest.mark.parametrize(
    ("model", "match"),
    [
        (lambda prompt: (_ for _ in ()).throw(RuntimeError("provider down")), "raised RuntimeError"),
        (lambda prompt: "just a string", "must return a SemanticResult"),
        (lambda prompt: {"summary": ""}, "malformed output"),
        (lambda prompt: SemanticResult(summary="x" * 10_000), "budget"),
    ],
)
def test_a_model_that_raises_or_returns_malformed_output_refuses(model: Any, match: str) -> None:
    semantic = SemanticCompressor(model, SemanticBudget(40_000, 500))
    orchestrator = ContextOrchestrator(config())
    with pytest.raises(CompressorFailedError, match=match):
        orchestrator.assemble(run_id="r", session_id="s", query="q", history=big_tool_history(10), semantic=semantic)
    assert orchestrator.active_runs() == frozenset()


def test_budget_must_be_positive() -> None:
    with pytest.raises(CompactionError):
        SemanticBudget(0, 10)


def summary_function(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    prompt = messages[-1].parts[-1].content  # type: ignore[union-attr]
    sources = prompt.count("<<<lychd:source ")
    args = {"summary": f"{sources} earlier exchanges about reading files", "omissions": ["file bodies"]}
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])


def test_pydantic_ai_function_model_through_the_adapter() -> None:
    semantic = SemanticCompressor(agent_summarizer(FunctionModel(summary_function)), SemanticBudget(40_000, 500))
    assembled = ContextOrchestrator(config()).assemble(
        run_id="r", session_id="s", query="q", history=big_tool_history(10, body=5_000), semantic=semantic
    )
    text = assembled.history[0]["parts"][0]["content"]
    assert "earlier exchanges about reading files" in text
    assert assembled.compression["compactions"][0]["omissions"][1]["reason"] == "file bodies"


def test_pydantic_ai_model_with_malformed_output_refuses() -> None:
    def bad(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("I will not use the tool")])

    semantic = SemanticCompressor(agent_summarizer(FunctionModel(bad)), SemanticBudget(40_000, 500))
    with pytest.raises(CompressorFailedError):
        ContextOrchestrator(config()).assemble(
            run_id="r", session_id="s", query="q", history=big_tool_history(10), semantic=semantic
        )
