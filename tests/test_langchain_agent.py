"""The LangChain adapter with the real framework: ``create_agent`` + ``GovernedMiddleware``
and LangGraph's prebuilt agent + ``governed_pre_model_hook``, each driving LangChain's
fake chat model through a long tool-using conversation with parallel calls and retries.

Every request the model gets is checked: no tool return without its call, no call
without its return, within the bound; the agent's state keeps every message; a refused
request never reaches the model.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import StructuredTool, ToolException
from pydantic import Field

from lychd_core.config import Governors
from lychd_core.errors import ContextBudgetExceededError, HistoryError
from lychd_core.history import compact_json
from lychd_core.integrations import CallLabels
from lychd_core.integrations.langchain import GovernedMiddleware, governed_pre_model_hook
from lychd_core.integrations.langchain_wire import from_wire, measured_wire_of, to_wire
from lychd_core.integrations.outbound_engine import OutboundEngine, OutboundOutcome, Recall
from lychd_core.labels import PrivatizationLabel
from lychd_core.memory.recall import RecallEntry, RecallReceipt
from lychd_core.privacy import EgressConfig, EgressRefused, EgressTarget
from lychd_core.stores.sqlite import SqliteMemoryStore
from tests.support.memories import memory_record

PAD = "lorem ipsum dolor " * 6
GOVERNORS = Governors(turn_window=3, char_cap=9_000, chars_per_token=3)
HOSTED = EgressConfig(targets={"hosted": EgressTarget(remote=True, max_class="internal")})
PUBLIC = PrivatizationLabel.public("caller")


class RecordingFakeChatModel(GenericFakeChatModel):
    """LangChain's fake chat model, recording the messages of every call; tools bind to it."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingFakeChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def script(turns: int) -> Iterator[AIMessage]:
    """Per turn: two parallel lookups, a flaky call that fails (a retry), again, an answer."""
    for turn in range(turns):
        yield AIMessage(
            content="",
            tool_calls=[
                {"name": "lookup", "args": {"q": f"a{turn}"}, "id": f"t{turn}-a"},
                {"name": "lookup", "args": {"q": f"b{turn}"}, "id": f"t{turn}-b"},
            ],
        )
        yield AIMessage(content="", tool_calls=[{"name": "flaky", "args": {"q": "x"}, "id": f"t{turn}-f1"}])
        yield AIMessage(content="", tool_calls=[{"name": "flaky", "args": {"q": "x"}, "id": f"t{turn}-f2"}])
        yield AIMessage(content=f"answer {turn}: {PAD}")


def tools() -> list[StructuredTool]:
    failed: set[str] = set()

    def lookup(q: str) -> str:
        return f"{q}: {PAD}"

    def flaky(q: str) -> str:
        if q not in failed:
            failed.add(q)
            raise ToolException("try again")
        failed.discard(q)
        return f"ok {PAD}"

    return [
        StructuredTool.from_function(lookup, name="lookup", description="Look up."),
        StructuredTool.from_function(flaky, name="flaky", description="Flaky.", handle_tool_error=True),
    ]


def check_request(messages: Sequence[BaseMessage], cap: int) -> None:
    called: set[str] = set()
    answered: set[str] = set()
    for message in messages:
        if isinstance(message, ToolMessage):
            assert message.tool_call_id in called, f"orphan tool return {message.tool_call_id}"
            answered.add(message.tool_call_id)
        elif isinstance(message, AIMessage):
            called.update(str(call["id"]) for call in message.tool_calls)
    assert called == answered, f"dangling calls {called - answered}"
    assert not isinstance(messages[0] if messages else None, ToolMessage)
    history = [m for m in messages if not isinstance(m, SystemMessage)]
    assert sum(len(compact_json(measured_wire_of(m))) for m in history) <= cap


def converse(agent: Any, model: RecordingFakeChatModel, turns: int) -> list[BaseMessage]:
    messages: list[BaseMessage] = []
    for turn in range(turns):
        messages = agent.invoke({"messages": [*messages, HumanMessage(f"question {turn}: {PAD}")]})["messages"]
    return messages


@pytest.mark.parametrize("kind", ["middleware", "pre_model_hook"])
def test_a_long_tool_using_conversation_is_bounded_whole_and_the_state_keeps_everything(kind: str) -> None:
    turns = 8
    model = RecordingFakeChatModel(messages=script(turns))
    outcomes: list[OutboundOutcome] = []
    if kind == "middleware":
        agent = create_agent(
            model,
            tools(),
            system_prompt="You help.",
            middleware=[GovernedMiddleware(governors=GOVERNORS, on_bound=outcomes.append)],
        )
    else:
        from langgraph.prebuilt import create_react_agent

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the prebuilt agent is deprecated in favour of create_agent
            agent = create_react_agent(
                model, tools(), pre_model_hook=governed_pre_model_hook(governors=GOVERNORS, on_bound=outcomes.append)
            )
    state = converse(agent, model, turns)
    assert len(model.seen) == 4 * turns
    assert len(outcomes) == 4 * turns
    for request in model.seen:
        check_request(request, GOVERNORS.char_cap)
    assert any(o.bounded.start > 0 for o in outcomes), "the conversation never needed bounding"
    assert len(state) == turns * 9  # question, 2 parallel calls and returns, a failed and a repeated call, answer
    assert [m.content for m in state if isinstance(m, HumanMessage)] == [f"question {t}: {PAD}" for t in range(turns)]
    statuses = [m.status for m in state if isinstance(m, ToolMessage) and m.name == "flaky"]
    assert statuses == ["error", "success"] * turns, "the retries were not exercised"
    assert all(len(o.selection.plan.selected) >= 1 for o in outcomes if o.selection.plan is not None)


def test_a_request_over_the_bound_is_refused_before_the_model() -> None:
    model = RecordingFakeChatModel(messages=script(1))
    agent = create_agent(model, tools(), middleware=[GovernedMiddleware(governors=Governors(char_cap=60))])
    with pytest.raises(ContextBudgetExceededError, match="current exchange"):
        agent.invoke({"messages": [HumanMessage("x" * 200)]})
    assert model.seen == []


def test_egress_is_gated_per_target_before_the_model() -> None:
    model = RecordingFakeChatModel(messages=script(1))
    refused = create_agent(model, tools(), middleware=[GovernedMiddleware(target="hosted", egress=HOSTED)])
    with pytest.raises(EgressRefused, match="query"):
        refused.invoke({"messages": [HumanMessage("hello")]})
    assert model.seen == []
    labels = CallLabels(history=PUBLIC, continuation=PUBLIC, query=PUBLIC)
    admitted = create_agent(
        model, tools(), middleware=[GovernedMiddleware(target="hosted", egress=HOSTED, labels=labels)]
    )
    admitted.invoke({"messages": [HumanMessage("hello")]})
    assert len(model.seen) == 4


def test_recall_reaches_each_request_and_never_the_state(tmp_path: Path) -> None:
    store = SqliteMemoryStore.open(tmp_path / "memory.sqlite3")
    store.add(memory_record(memory_id="m1", claim="The build runs with tox."))
    record = store.latest("m1")
    assert record is not None
    receipt = RecallReceipt((RecallEntry(record.memory_id, record.revision, record.digest),), 2_000)
    engine = OutboundEngine(adapter="langchain", recall=Recall(receipt=receipt, source=lambda: store))
    model = RecordingFakeChatModel(messages=script(1))
    state = create_agent(model, tools(), middleware=[GovernedMiddleware(engine)]).invoke(
        {"messages": [HumanMessage("how is it built?")]}
    )["messages"]
    for request in model.seen:
        recalled = [m for m in request if isinstance(m, HumanMessage) and "tox" in str(m.content)]
        assert len(recalled) == 1
        at = request.index(recalled[0])
        assert request[at + 1].content == "how is it built?", "recall goes right before the current exchange"
    assert not any("tox" in str(m.content) for m in state)


def test_langchain_messages_round_trip_losslessly() -> None:
    messages: list[BaseMessage] = [
        SystemMessage("rules", id="s"),
        HumanMessage([{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "data:,"}}]),
        AIMessage("", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}], response_metadata={"m": 1}),
        ToolMessage("out", tool_call_id="c1", name="f", artifact={"raw": [1]}),
        ToolMessage("bad", tool_call_id="c1", status="error"),
        AIMessage("done", usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}),
        SystemMessage([{"type": "text", "text": "more rules"}]),
        AIMessage([{"type": "reasoning", "reasoning": "hm"}, {"type": "text", "text": "ok"}]),
    ]
    wire = to_wire(messages)
    kinds = ["request", "request", "response", "request", "request", "response", "request", "response"]
    assert [m["kind"] for m in wire] == kinds
    assert wire[4]["parts"][0]["part_kind"] == "retry-prompt"
    assert from_wire(wire) == messages


def test_a_message_without_a_wire_form_is_a_typed_error() -> None:
    from langchain_core.messages import ChatMessage

    with pytest.raises(HistoryError, match="ChatMessage has no wire form"):
        to_wire([ChatMessage(content="x", role="critic")])
    with pytest.raises(HistoryError, match="sequence of LangChain messages"):
        to_wire("nope")  # type: ignore[arg-type]


def test_the_async_path_and_the_floor_before_the_system_prompt() -> None:
    import asyncio

    from lychd_core.blocks import Block, Layer

    floor = [Block(layer=Layer.IDENTITY, key="rules", text="Be brief.", label=PUBLIC)]
    model = RecordingFakeChatModel(messages=script(1))
    middleware = GovernedMiddleware(floor=floor, governors=GOVERNORS)
    agent = create_agent(model, tools(), system_prompt="You help.", middleware=[middleware])
    state = asyncio.run(agent.ainvoke({"messages": [HumanMessage("hello")]}))
    assert len(model.seen) == 4 and len(state["messages"]) == 9
    for request in model.seen:
        assert isinstance(request[0], SystemMessage)
        text = str(request[0].content)
        assert text.index("Be brief.") < text.index("You help.")
        check_request(request, GOVERNORS.char_cap)


def test_leading_system_messages_are_instructions_and_always_sent() -> None:
    hook = governed_pre_model_hook(governors=Governors(turn_window=1, char_cap=9_000))
    history: list[BaseMessage] = [SystemMessage("rules")]
    for turn in range(5):
        history += [HumanMessage(f"q{turn}"), AIMessage(f"a{turn}")]
    sent = hook({"messages": history})["llm_input_messages"]
    assert [m.content for m in sent] == ["rules", "q3", "a3", "q4", "a4"]


def test_bad_settings_are_refused_when_the_adapter_is_built() -> None:
    from lychd_core.errors import BudgetError
    from lychd_core.privacy import UnknownTargetError

    with pytest.raises(UnknownTargetError, match="'nowhere' is not configured"):
        GovernedMiddleware(target="nowhere")
    with pytest.raises(BudgetError, match="governors must be"):
        GovernedMiddleware(governors={"turn_window": 2})
    with pytest.raises(BudgetError, match="output_reserve"):
        GovernedMiddleware(output_reserve=-1)
    with pytest.raises(TypeError, match="not both"):
        GovernedMiddleware(OutboundEngine(adapter="langchain"), governors=GOVERNORS)
    with pytest.raises(ContextBudgetExceededError, match="instructions"):
        from lychd_core.blocks import Block, Layer

        GovernedMiddleware(
            floor=[Block(layer=Layer.IDENTITY, key="k", text="x" * 500, label=PUBLIC)],
            governors=Governors(char_cap=100),
        )
