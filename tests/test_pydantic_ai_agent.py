"""GovernedContext with a real pydantic_ai.Agent driven by FunctionModel (no network).

A 64-turn conversation, carried between runs through ``message_history``, with tool
calls every turn, parallel calls, tool retries and output-validator retries. Every
request the model receives is recorded inside the FunctionModel function and checked:
whole tool exchanges, whole runs, the character bound and the turn window; the run's
``all_messages()`` must keep every message.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ModelRetry, RunContext
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from lychd_core.blocks import Block, Layer
from lychd_core.config import Governors
from lychd_core.errors import ContextBudgetExceededError, FloorBlockError
from lychd_core.integrations import GovernedContext, OutboundBound, from_wire, to_wire

WINDOW = 4_000
RESERVE = 500
GOVERNORS = Governors(turn_window=6, char_cap=96_000, chars_per_token=3)
CAP = min(GOVERNORS.char_cap, GOVERNORS.chars_per_token * WINDOW)  # 12,000 characters


def wire_chars(messages: list[ModelMessage]) -> int:
    """Compact JSON characters of the wire form, without each request's recorded instructions."""
    total = 0
    for message in ModelMessagesTypeAdapter.dump_python(messages, mode="json"):
        message.pop("instructions", None)
        total += len(json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    return total


@dataclass
class Received:
    messages: list[ModelMessage]
    instructions: str
    chars: int


def turn_of(messages: list[ModelMessage]) -> int:
    """The turn of the current exchange, from its user prompt ("turn N")."""
    prompts = [
        str(p.content)
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, UserPromptPart) and str(p.content).startswith("turn ")
    ]
    assert prompts, "the model received no user prompt: the current exchange was split"
    return int(prompts[-1].split()[1])


class ScriptedModel:
    """Tool calls every turn; extra rounds, parallel calls; reports usage like a provider (4 chars/token)."""

    def __init__(self) -> None:
        self.received: list[Received] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        chars = wire_chars(messages) + len(info.instructions or "")
        self.received.append(Received(list(messages), info.instructions or "", chars))
        usage = RequestUsage(input_tokens=math.ceil(chars / 4), output_tokens=10)
        turn = turn_of(messages)
        last = messages[-1]
        kinds = [part.part_kind for part in last.parts]
        rounds = sum(1 for m in messages if isinstance(m, ModelResponse) and m.run_id == last.run_id)
        if "user-prompt" in kinds:
            calls = [ToolCallPart("lookup", {"turn": turn, "k": k}) for k in range(2 if turn % 3 == 0 else 1)]
            return ModelResponse(parts=calls, usage=usage)
        if any(getattr(p, "outcome", None) == "retried" for p in last.parts):
            return ModelResponse(parts=[ToolCallPart("lookup", {"turn": turn, "k": 0})], usage=usage)
        if "tool-return" in kinds and turn % 4 == 0 and rounds < 2:
            return ModelResponse(parts=[ToolCallPart("lookup", {"turn": turn, "k": 2})], usage=usage)
        return ModelResponse(parts=[TextPart(f"answer {turn}: " + "lorem ipsum " * 12)], usage=usage)


def build_agent(model: ScriptedModel, capability: GovernedContext[None]) -> Agent[None, str]:
    agent = Agent(FunctionModel(model), instructions="Answer from the lookups.", capabilities=[capability])
    failed: set[tuple[int, int]] = set()
    validated: set[int] = set()

    @agent.tool_plain
    def lookup(turn: int, k: int) -> str:
        if turn % 5 == 0 and k == 0 and (turn, k) not in failed:
            failed.add((turn, k))
            raise ModelRetry(f"lookup {turn}/{k} is warming up, call again")
        return f"result {turn}/{k}: " + "data " * 30

    @agent.output_validator
    def check(ctx: RunContext[None], output: str) -> str:
        turn = int(output.split()[1].rstrip(":"))
        if turn % 7 == 0 and turn not in validated:
            validated.add(turn)
            raise ModelRetry("say it again, differently")
        return output

    return agent


def assert_whole_tool_exchanges(messages: list[ModelMessage]) -> None:
    called: set[str] = set()
    answered: set[str] = set()
    for message in messages:
        for part in message.parts:
            if part.part_kind == "tool-call":
                called.add(part.tool_call_id)
            elif part.part_kind in ("tool-return", "retry-prompt") and getattr(part, "tool_call_id", None):
                assert part.tool_call_id in called, f"orphan tool return {part.tool_call_id} sent to the model"
                answered.add(part.tool_call_id)
    assert called == answered, f"dangling tool calls sent to the model: {sorted(called - answered)}"


def strip_run_ids(messages: list[ModelMessage]) -> list[ModelMessage]:
    """Legacy history: the same messages without run ids."""
    return from_wire([{**message, "run_id": None} for message in to_wire(messages)])


@pytest.fixture(scope="module")
def conversation() -> tuple[ScriptedModel, list[OutboundBound], list[list[ModelMessage]]]:
    model = ScriptedModel()
    bounds: list[OutboundBound] = []
    floor = [
        Block(layer=Layer.IDENTITY, key="persona", text="You are a patient analyst."),
        Block(layer=Layer.KARMA, key="lesson", text="Cite the lookup you used."),
    ]
    capability: GovernedContext[None] = GovernedContext(
        floor=floor, governors=GOVERNORS, window=WINDOW, output_reserve=RESERVE, on_bound=bounds.append
    )
    agent = build_agent(model, capability)
    histories: list[list[ModelMessage]] = []
    history: list[ModelMessage] = []
    for turn in range(1, 65):
        if turn == 33:  # continue on a legacy copy: groups are then found without run ids
            history = strip_run_ids(history)
        result = agent.run_sync(f"turn {turn}", message_history=history, usage_limits=capability.usage_limits())
        assert result.output.startswith(f"answer {turn}:")
        new_history = result.all_messages()
        assert to_wire(new_history[: len(history)]) == to_wire(history), "earlier history changed"
        history = new_history
        histories.append(history)
    return model, bounds, histories


def test_the_runs_history_stays_whole(conversation: Any) -> None:
    model, _, histories = conversation
    final = histories[-1]
    prompts = [p.content for m in final if isinstance(m, ModelRequest) for p in m.parts if p.part_kind == "user-prompt"]
    assert prompts == [f"turn {n}" for n in range(1, 65)]
    # every response the model gave is still in the history, though no request saw them all
    assert sum(1 for m in final if isinstance(m, ModelResponse)) == len(model.received)
    assert len(final) > 300
    assert_whole_tool_exchanges(final)


def test_every_request_received_is_bounded_and_whole(conversation: Any) -> None:
    model, bounds, histories = conversation
    assert len(model.received) > 150
    for received in model.received:
        assert_whole_tool_exchanges(received.messages)
        assert received.chars <= CAP, "request over the character bound"
        first = received.messages[0]
        assert isinstance(first, ModelRequest)
        assert any(str(p.content).startswith("turn ") for p in first.parts if p.part_kind == "user-prompt")
        assert not any(p.part_kind == "tool-return" for p in first.parts)
    sizes = [len(r.messages) for r in model.received]
    assert max(sizes) < len(histories[-1]) // 4, "bounding never bit"
    assert any(b.omitted_messages > 0 for b in bounds)
    assert all(b.sent_chars + b.instruction_chars <= b.char_cap == CAP for b in bounds)
    assert all(b.input_token_limit == WINDOW - RESERVE for b in bounds)


def test_runs_are_sent_whole_and_within_the_turn_window(conversation: Any) -> None:
    model, _, histories = conversation
    final_counts: dict[str, int] = {}
    for message in histories[31] + histories[-1]:  # run ids before turn 33 were stripped after it
        if message.run_id is not None:
            final_counts.setdefault(message.run_id, 0)
            final_counts[message.run_id] += 1
    counted_twice = {m.run_id for m in histories[31] if m.run_id} & {m.run_id for m in histories[-1] if m.run_id}
    assert not counted_twice
    with_run_ids = [r for r in model.received if all(m.run_id for m in r.messages)]
    assert len(with_run_ids) > 50
    for received in with_run_ids:
        runs: list[str] = []
        for message in received.messages:
            if not runs or runs[-1] != message.run_id:
                assert message.run_id not in runs, "a run was sent in pieces"
                runs.append(message.run_id)
        settled = runs[:-1]
        assert len(settled) <= GOVERNORS.turn_window
        for run_id in settled:  # every settled run is sent with all of its messages
            assert sum(1 for m in received.messages if m.run_id == run_id) == final_counts[run_id]


def test_instructions_carry_the_floor_with_source_boundaries(conversation: Any) -> None:
    model, _, _ = conversation
    for received in model.received:
        assert received.instructions.startswith("Answer from the lookups.")
        assert '[lychd block: layer 1 IDENTITY, key "persona"]\nYou are a patient analyst.' in received.instructions
        assert received.instructions.index('key "persona"') < received.instructions.index('key "lesson"')


def test_stock_process_history_deletes_what_governed_context_keeps() -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if any(p.part_kind == "user-prompt" for p in messages[-1].parts):
            return ModelResponse(parts=[ToolCallPart("lookup", {"turn": 0, "k": 0})])
        return ModelResponse(parts=[TextPart("done")])

    def run_with(capability: Any) -> int:
        agent = Agent(FunctionModel(model), capabilities=[capability])

        @agent.tool_plain
        def lookup(turn: int, k: int) -> str:
            return "ok"

        history: list[ModelMessage] = []
        for turn in range(1, 9):
            history = agent.run_sync(f"turn {turn}", message_history=history).all_messages()
        return len(history)

    trimmed = run_with(ProcessHistory(lambda messages: messages[-3:]))
    governed = run_with(GovernedContext(governors=Governors(turn_window=1), window=None))
    assert governed > 30
    assert trimmed < governed  # ProcessHistory wrote its trim back into the run's messages


def test_dynamic_floor_is_rendered_per_request_after_the_static_floor() -> None:
    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.instructions or "")
        return ModelResponse(parts=[TextPart("ok")])

    capability: GovernedContext[None] = GovernedContext(
        floor=[Block(layer=Layer.IDENTITY, key="who", text="Static.")],
        dynamic_floor=lambda ctx: [Block(layer=Layer.ENVIRONMENT, key="env", text=f"step {ctx.run_step}")],
        window=None,
    )
    Agent(FunctionModel(model), capabilities=[capability]).run_sync("hi")
    assert seen == [
        capability.floor_text
        + '\n\n[lychd block: layer 3 ENVIRONMENT, key "env"]\nstep 1\n[end lychd block: key "env"]'
    ]


@pytest.mark.parametrize(
    "dynamic, error",
    [
        ([Block(layer=Layer.STATE, key="s", text="x")], FloorBlockError),
        ([Block(layer=Layer.IDENTITY, key="who", text="again")], FloorBlockError),  # duplicate key
        ([Block(layer=Layer.CODEX, key="big", text="x" * 5_000)], ContextBudgetExceededError),
    ],
)
def test_bad_or_oversized_dynamic_floor_stops_the_run_before_inference(dynamic: list[Block], error: type) -> None:
    calls: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        return ModelResponse(parts=[TextPart("ok")])

    capability: GovernedContext[None] = GovernedContext(
        floor=[Block(layer=Layer.IDENTITY, key="who", text="Static.")],
        dynamic_floor=lambda ctx: dynamic,
        governors=Governors(char_cap=3_000),
        window=None,
    )
    with pytest.raises(error):
        Agent(FunctionModel(model), capabilities=[capability]).run_sync("hi")
    assert calls == []


def test_an_exchange_too_large_to_send_whole_is_refused_not_split() -> None:
    calls: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        return ModelResponse(parts=[TextPart("ok")])

    capability: GovernedContext[None] = GovernedContext(governors=Governors(char_cap=2_000), window=None)
    agent = Agent(FunctionModel(model), capabilities=[capability])
    history = agent.run_sync("short").all_messages()
    with pytest.raises(ContextBudgetExceededError, match="current exchange") as caught:
        agent.run_sync("x" * 3_000, message_history=history)
    assert caught.value.available == 2_000
    assert calls == [1]


def test_a_run_resumed_with_deferred_tool_results_keeps_the_exchange_whole() -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if any(p.part_kind == "user-prompt" for p in messages[-1].parts):
            return ModelResponse(parts=[ToolCallPart("delete", {"path": "x"}, tool_call_id="call-1")])
        return ModelResponse(parts=[TextPart("deleted")])

    capability: GovernedContext[None] = GovernedContext(governors=Governors(turn_window=0), window=None)
    agent = Agent(FunctionModel(model), output_type=[str, DeferredToolRequests], capabilities=[capability])

    @agent.tool_plain(requires_approval=True)
    def delete(path: str) -> str:
        return f"deleted {path}"

    paused = agent.run_sync("delete x")
    assert isinstance(paused.output, DeferredToolRequests)
    resumed = agent.run_sync(
        message_history=paused.all_messages(), deferred_tool_results=DeferredToolResults(approvals={"call-1": True})
    )
    assert resumed.output == "deleted"


def test_streamed_requests_are_bounded_too() -> None:
    seen: list[int] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        seen.append(len(messages))
        yield "hello "
        yield "world"

    capability: GovernedContext[None] = GovernedContext(governors=Governors(turn_window=1), window=None)
    agent = Agent(FunctionModel(stream_function=stream), capabilities=[capability])

    async def converse() -> list[ModelMessage]:
        history: list[ModelMessage] = []
        for turn in range(5):
            async with agent.run_stream(f"turn {turn}", message_history=history) as result:
                assert await result.get_output() == "hello world"
            history = result.all_messages()
        return history

    assert len(asyncio.run(converse())) == 10
    assert seen == [1, 3, 3, 3, 3]
