"""One OpenTelemetry span per assembly — the orchestrator (so the CLI) and every adapter —
read back with the OTel SDK's in-memory exporter: the GenAI and ``lychd.*`` attributes are
there, and no attribute holds text from the context. Without OpenTelemetry, nothing."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lychd_core.assembly import ContextOrchestrator
from lychd_core.config import Governors, default_config
from lychd_core.errors import ContextBudgetExceededError, EgressRefused
from lychd_core.integrations import CallLabels
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy import EgressConfig, EgressTarget
from lychd_core.telemetry import SPAN_NAME, assembly_span
from lychd_core.telemetry import spans as spans_module
from tests.support.conversations import answer, tool_call, tool_return, user

SECRET = "zebrafinch"
"""In every piece of content: no attribute may hold it."""
HOSTED = EgressConfig(targets={"hosted": EgressTarget(remote=True, max_class="internal")})
PUBLIC = PrivatizationLabel.public("caller")

_EXPORTER = InMemorySpanExporter()


def _install() -> None:
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):  # once per process: the global provider is set once
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))


_install()


@pytest.fixture
def exported() -> Iterator[InMemorySpanExporter]:
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()


def ours(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return [span for span in exporter.get_finished_spans() if span.name == SPAN_NAME]


def assert_no_content(span: ReadableSpan) -> None:
    for name, value in (span.attributes or {}).items():
        values = value if isinstance(value, (list, tuple)) else [value]
        for item in values:
            assert SECRET not in str(item), f"{name} holds context text"
            assert not isinstance(item, str) or len(item) < 100, f"{name} holds a long string"


def conversation(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for t in range(turns):
        messages += [
            user(f"question {t} {SECRET}"),
            tool_call("search", f"c{t}"),
            tool_return("search", f"c{t}", f"result {SECRET} " * 20),
            answer(f"answer {SECRET}"),
        ]
    return messages


def test_one_orchestrator_span_per_assembly_with_figures_only(exported: InMemorySpanExporter) -> None:
    orchestrator = ContextOrchestrator(default_config())
    assembled = orchestrator.assemble(
        run_id="r",
        session_id="s1",
        query=f"what {SECRET}?",
        history=conversation(30),
        window=6_000,
        reserve_output=1_000,
    )
    [span] = ours(exported)
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.operation.name"] == "assemble_context"
    assert attributes["gen_ai.conversation.id"] == "s1"
    assert attributes["lychd.adapter"] == "orchestrator"
    assert attributes["lychd.prefix_digest"] == assembled.prefix_digest
    assert attributes["lychd.used.chars"] == assembled.used_chars
    assert attributes["lychd.budget.chars"] == assembled.bounds.char_cap
    assert attributes["lychd.counter"] == assembled.bounds.token_counter
    assert attributes["lychd.selected.count"] == len(assembled.plan.selected)
    assert attributes["lychd.omitted.count"] == len(assembled.plan.omitted) > 0
    by_reason = {k: v for k, v in attributes.items() if k.startswith("lychd.omitted.") and k != "lychd.omitted.count"}
    assert sum(by_reason.values()) == attributes["lychd.omitted.count"]  # type: ignore[arg-type]
    assert attributes["lychd.label.class"] == assembled.label.privacy_class.value
    assert attributes["lychd.egress.decision"] == "ungated"
    assert attributes["gen_ai.conversation.compacted"] is False
    assert_no_content(span)


def test_a_refused_assembly_records_only_the_error_type(exported: InMemorySpanExporter) -> None:
    with pytest.raises(ContextBudgetExceededError):
        ContextOrchestrator(default_config()).assemble(
            run_id="r", session_id="s", query=SECRET * 2_000, window=1_500, reserve_output=100
        )
    [span] = ours(exported)
    assert span.attributes is not None and span.attributes["error.type"] == "ContextBudgetExceededError"
    assert span.status.description == "ContextBudgetExceededError"
    assert not span.events, "an exception event would carry its message"
    assert_no_content(span)


def test_pydantic_ai_adapter_spans_every_request_and_a_refusal(exported: InMemorySpanExporter) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from lychd_core.integrations import GovernedContext

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) < 3:
            return ModelResponse(parts=[ToolCallPart(tool_name="lookup", args={}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart(f"done {SECRET}")])

    agent: Agent[None, str] = Agent(FunctionModel(model), capabilities=[GovernedContext(governors=Governors())])

    @agent.tool_plain
    def lookup() -> str:
        return f"found {SECRET}"

    agent.run_sync(f"hello {SECRET}")
    spans = ours(exported)
    assert [s.attributes["lychd.adapter"] for s in spans if s.attributes] == ["pydantic-ai", "pydantic-ai"]
    assert all(s.attributes and s.attributes["lychd.egress.decision"] == "admitted" for s in spans)
    for span in spans:
        assert_no_content(span)
    exported.clear()
    refusing = Agent(FunctionModel(model), capabilities=[GovernedContext(target="hosted", egress=HOSTED)])
    with pytest.raises(EgressRefused):
        refusing.run_sync(f"hello {SECRET}")
    [span] = ours(exported)
    assert span.attributes is not None
    assert (span.attributes["lychd.egress.decision"], span.attributes["error.type"]) == ("refused", "EgressRefused")


def test_langchain_and_openai_agents_adapters_span_every_request(exported: InMemorySpanExporter) -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from lychd_core.integrations.langchain import GovernedMessages
    from lychd_core.integrations.openai_agents import GovernedInputFilter

    labels = CallLabels(history=PUBLIC, continuation=PUBLIC, query=PUBLIC)
    chat = [
        HumanMessage(f"q {SECRET}"),
        AIMessage("", tool_calls=[{"name": "f", "args": {"s": SECRET}, "id": "c1"}]),
        ToolMessage(f"out {SECRET}", tool_call_id="c1"),
    ]
    GovernedMessages(target="hosted", egress=HOSTED, labels=labels).messages(chat)
    items: list[Any] = [
        {"role": "user", "content": f"q {SECRET}"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": SECRET},
        {"type": "function_call_output", "call_id": "c1", "output": SECRET},
    ]
    from agents.run_config import CallModelData, ModelInputData

    data = CallModelData(model_data=ModelInputData(input=items, instructions=SECRET), agent=None, context=None)  # type: ignore[arg-type]
    GovernedInputFilter(governors=Governors()).__call__(data)
    spans = ours(exported)
    assert [s.attributes["lychd.adapter"] for s in spans if s.attributes] == ["langchain", "openai-agents"]
    for span in spans:
        assert span.attributes is not None and span.attributes["lychd.history.messages"] == 3
        assert_no_content(span)


def test_without_opentelemetry_nothing_is_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # import fails as if not installed
    monkeypatch.setattr(spans_module, "_tracer", spans_module._UNRESOLVED)
    with assembly_span("orchestrator") as span:
        assert not span.recording
    assert spans_module._tracer is None
    monkeypatch.setattr(spans_module, "_tracer", spans_module._UNRESOLVED)


def test_spans_nest_under_the_callers_span(exported: InMemorySpanExporter) -> None:
    tracer = trace.get_tracer("caller")

    async def run() -> None:
        with tracer.start_as_current_span("agent turn"):
            ContextOrchestrator(default_config()).assemble(run_id="r", session_id="s", query="q")

    asyncio.run(run())
    [span] = ours(exported)
    parent = next(s for s in exported.get_finished_spans() if s.name == "agent turn")
    assert span.parent is not None and span.parent.span_id == parent.context.span_id


CLI_WITH_TRACER = """
import json, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
from lychd_core.cli import main

try:
    main(sys.argv[1:])
except SystemExit:
    pass
spans = [dict(s.attributes) for s in exporter.get_finished_spans() if s.name == "assemble_context"]
print("SPANS " + json.dumps(spans), file=sys.stderr)
"""


def test_the_cli_emits_one_span_per_assembly(tmp_path: Any) -> None:
    import json
    import subprocess

    (tmp_path / "a.py").write_text(f'"""{SECRET}."""\n\ndef f(x: int) -> int:\n    return x\n')
    result = subprocess.run(
        [sys.executable, "-c", CLI_WITH_TRACER, "assemble", "--workspace", str(tmp_path), "--material", "a.py",
         "--query", f"what is {SECRET}?", "--window", "8000", "--reserve-output", "1000", "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert SECRET in result.stdout  # the context itself holds it
    [line] = [line for line in result.stderr.splitlines() if line.startswith("SPANS ")]
    [attributes] = json.loads(line.removeprefix("SPANS "))
    assert attributes["lychd.adapter"] == "orchestrator"
    assert attributes["lychd.budget.chars"] == 24_000
    assert SECRET not in line


def test_an_assembly_in_a_process_without_opentelemetry_imports_none_of_it() -> None:
    """No provider can be set before the API is imported, so nothing is loaded to record nothing."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from lychd_core.assembly import ContextOrchestrator\n"
        "ContextOrchestrator().assemble(run_id='r', session_id='s', query='q')\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    assert done.stdout.strip() == "[]"


def test_a_built_request_is_traced_like_the_keyword_call(exported: InMemorySpanExporter) -> None:
    from lychd_core.assembly.request import AssemblyRequest

    orchestrator = ContextOrchestrator()
    orchestrator.assemble_request(AssemblyRequest(run_id="r", session_id="built", query="q"))
    (span,) = ours(exported)
    assert span.attributes is not None and span.attributes["gen_ai.conversation.id"] == "built"
    assert span.attributes["lychd.egress.decision"] == "ungated"
