"""The OpenAI Agents SDK adapter with the real framework: ``Runner`` with a fake ``Model``
and ``GovernedInputFilter`` as ``call_model_input_filter``, through a long tool-using
conversation in a session, with reasoning items, parallel calls and retries.

Every model call is checked: no ``function_call_output`` without its ``function_call``,
no call without its output, reasoning kept with the calls it precedes, within the
bound; the session keeps every item; a refused call never reaches the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import (
    Agent,
    Model,
    ModelResponse,
    RunConfig,
    Runner,
    SQLiteSession,
    Usage,
    function_tool,
    set_tracing_disabled,
)
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)

from lychd_core.config import Governors
from lychd_core.errors import ContextBudgetExceededError, HistoryError
from lychd_core.history import compact_json
from lychd_core.integrations import CallLabels
from lychd_core.integrations.openai_agents import GovernedInputFilter
from lychd_core.integrations.openai_agents_wire import from_wire, to_wire
from lychd_core.integrations.outbound_engine import OutboundEngine, OutboundOutcome, Recall
from lychd_core.labels import PrivatizationLabel
from lychd_core.memory.recall import RecallEntry, RecallReceipt
from lychd_core.privacy import EgressConfig, EgressRefused, EgressTarget
from lychd_core.stores.sqlite import SqliteMemoryStore
from tests.support.memories import memory_record

set_tracing_disabled(True)  # the SDK's own tracing would try to export

PAD = "lorem ipsum dolor " * 6
GOVERNORS = Governors(turn_window=3, char_cap=12_000, chars_per_token=3)
HOSTED = EgressConfig(targets={"hosted": EgressTarget(remote=True, max_class="internal")})
PUBLIC = PrivatizationLabel.public("caller")


def call(call_id: str, name: str, q: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        arguments=f'{{"q": "{q}"}}', call_id=call_id, name=name, type="function_call", id=f"fc_{call_id}"
    )


def thought(key: str) -> ResponseReasoningItem:
    return ResponseReasoningItem(id=f"rs_{key}", summary=[], type="reasoning")


def said(text: str) -> ResponseOutputMessage:
    content = [ResponseOutputText(annotations=[], text=text, type="output_text")]
    return ResponseOutputMessage(id="msg", content=content, role="assistant", status="completed", type="message")


def script(turns: int) -> Iterator[list[Any]]:
    """Per turn: reasoning + two parallel lookups, a flaky call that fails, again, an answer."""
    for turn in range(turns):
        yield [thought(f"{turn}a"), call(f"t{turn}a", "lookup", "a"), call(f"t{turn}b", "lookup", "b")]
        yield [thought(f"{turn}f"), call(f"t{turn}f1", "flaky", "x")]
        yield [call(f"t{turn}f2", "flaky", "x")]
        yield [said(f"answer {turn}: {PAD}")]


class ScriptedModel(Model):
    """A fake ``Model``: answers from a script and records every input it is sent."""

    def __init__(self, outputs: Iterator[list[Any]]) -> None:
        self.outputs = outputs
        self.seen: list[tuple[str | None, list[Any]]] = []

    async def get_response(self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any) -> Any:
        self.seen.append((system_instructions, list(input)))
        return ModelResponse(output=next(self.outputs), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


def agent_with(model: ScriptedModel) -> Agent[Any]:
    failed: set[str] = set()

    @function_tool
    def lookup(q: str) -> str:
        """Look up."""
        return f"{q}: {PAD}"

    @function_tool
    def flaky(q: str) -> str:
        """Flaky."""
        if q not in failed:
            failed.add(q)
            raise RuntimeError("try again")
        failed.discard(q)
        return f"ok {PAD}"

    return Agent(name="helper", instructions="You help.", model=model, tools=[lookup, flaky])


def check_call(items: list[Any], cap: int) -> None:
    called: list[str] = []
    answered: set[str] = set()
    for index, item in enumerate(items):
        kind = item.get("type")
        if kind == "function_call":
            called.append(item["call_id"])
        elif kind == "function_call_output":
            assert item["call_id"] in called, f"orphan output {item['call_id']}"
            answered.add(item["call_id"])
        elif kind == "reasoning":
            follower = items[index + 1] if index + 1 < len(items) else None
            assert follower is not None and follower.get("type") == "function_call", "reasoning without its call"
    assert set(called) == answered, f"dangling calls {set(called) - answered}"
    assert sum(len(compact_json(item)) for item in items) <= cap


def run_turns(model: ScriptedModel, turns: int, filter_: GovernedInputFilter, session: SQLiteSession) -> None:
    agent = agent_with(model)
    config = RunConfig(call_model_input_filter=filter_)

    async def go() -> None:
        for turn in range(turns):
            await Runner.run(agent, f"question {turn}: {PAD}", session=session, run_config=config)

    asyncio.run(go())


def test_a_long_tool_using_conversation_is_bounded_whole_and_the_session_keeps_everything() -> None:
    turns = 8
    model = ScriptedModel(script(turns))
    outcomes: list[OutboundOutcome] = []
    session = SQLiteSession("conversation")
    run_turns(model, turns, GovernedInputFilter(governors=GOVERNORS, on_bound=outcomes.append), session)
    assert len(model.seen) == 4 * turns == len(outcomes)
    for instructions, items in model.seen:
        assert instructions == "You help."
        check_call(items, GOVERNORS.char_cap)
    assert any(o.bounded.start > 0 for o in outcomes), "the conversation never needed bounding"
    stored = asyncio.run(session.get_items())
    assert [i["content"] for i in stored if i.get("role") == "user"] == [f"question {t}: {PAD}" for t in range(turns)]
    outputs = [i for i in stored if i.get("type") == "function_call_output"]
    assert len(outputs) == 4 * turns
    assert sum("try again" in str(o["output"]) for o in outputs) == turns, "the retries were not exercised"
    assert sum(i.get("type") == "reasoning" for i in stored) == 2 * turns


def test_a_call_over_the_bound_is_refused_before_the_model() -> None:
    model = ScriptedModel(script(1))
    with pytest.raises(ContextBudgetExceededError, match="current exchange"):
        run_turns(model, 1, GovernedInputFilter(governors=Governors(char_cap=100)), SQLiteSession("s"))
    assert model.seen == []


def test_egress_is_gated_per_target_before_the_model() -> None:
    model = ScriptedModel(script(1))
    with pytest.raises(EgressRefused, match="query"):
        run_turns(model, 1, GovernedInputFilter(target="hosted", egress=HOSTED), SQLiteSession("s"))
    assert model.seen == []
    labels = CallLabels(history=PUBLIC, continuation=PUBLIC, query=PUBLIC)
    run_turns(model, 1, GovernedInputFilter(target="hosted", egress=HOSTED, labels=labels), SQLiteSession("t"))
    assert len(model.seen) == 4


def test_recall_reaches_each_call_and_never_the_session(tmp_path: Path) -> None:
    store = SqliteMemoryStore.open(tmp_path / "memory.sqlite3")
    store.add(memory_record(memory_id="m1", claim="The build runs with tox."))
    record = store.latest("m1")
    assert record is not None
    receipt = RecallReceipt((RecallEntry(record.memory_id, record.revision, record.digest),), 2_000)
    engine = OutboundEngine(adapter="openai-agents", recall=Recall(receipt=receipt, source=lambda: store))
    model = ScriptedModel(script(1))
    session = SQLiteSession("recall")
    run_turns(model, 1, GovernedInputFilter(engine), session)
    for _, items in model.seen:
        recalled = [i for i in items if "tox" in str(i.get("content"))]
        assert len(recalled) == 1
        assert items[items.index(recalled[0]) + 1]["content"].startswith("question 0")
    assert not any("tox" in str(i) for i in asyncio.run(session.get_items()))


def test_items_round_trip_losslessly_and_bad_items_are_typed_errors() -> None:
    items: list[dict[str, Any]] = [
        {"role": "developer", "content": "rules"},
        {"role": "user", "content": [{"type": "input_text", "text": "see"}, {"type": "input_image", "image_url": "x"}]},
        {"type": "reasoning", "id": "rs", "summary": [], "encrypted_content": "opaque"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "done"},
        {"type": "web_search_call", "id": "ws", "status": "completed"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok", "annotations": []}]},
    ]
    wire = to_wire(items)
    assert [m["parts"][0]["part_kind"] for m in wire] == [
        "system-prompt",
        "user-prompt",
        "thinking",
        "tool-call",
        "tool-return",
        "builtin-tool-call",
        "text",
    ]
    assert from_wire(wire) == items
    with pytest.raises(HistoryError, match="unknown message role 'critic'"):
        to_wire([{"role": "critic", "content": "x"}])
    with pytest.raises(HistoryError, match="'call_id' must be a non-empty string"):
        to_wire([{"type": "function_call", "call_id": 7}])
    with pytest.raises(HistoryError, match="returns tool call 'ghost'"):
        GovernedInputFilter().engine.govern(
            to_wire([{"role": "user", "content": "q"}, {"type": "function_call_output", "call_id": "ghost"}]),
            instruction_chars=0,
        )
