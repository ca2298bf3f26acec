"""[history] trim: newest (the reference) and chunked (append to a stable prefix, trim to low water)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from lychd_core.assembly import ContextOrchestrator
from lychd_core.assembly.trim import GroupSpan, TrimReason, TrimState, trim_start
from lychd_core.config import Governors, default_config, parse_config
from lychd_core.history import check_tool_pairing, compact_json, group_messages, starts_group
from lychd_core.integrations import GovernedContext, OutboundBound, to_wire
from lychd_core.integrations.outbound import bound_outbound, history_char_budget, trim_outbound
from lychd_core.tokens import HistoryConfig
from tests.support.conversations import conversation, turn

SPANS = [GroupSpan(start, 100, 30) for start in range(0, 100, 10)]  # ten groups of 100 chars, ends at 100


def test_newest_is_the_reference_whatever_the_previous_start() -> None:
    decision = trim_start(SPANS, end=100, newest_start=40, previous=10, mode="newest")
    assert (decision.start, decision.reason) == (40, TrimReason.NEWEST)


def test_chunked_without_a_previous_start_keeps_the_newest() -> None:
    decision = trim_start(SPANS, end=100, newest_start=40, previous=None, mode="chunked")
    assert (decision.start, decision.reason) == (40, TrimReason.NEWEST)


def test_chunked_only_appends_while_the_previous_start_fits() -> None:
    decision = trim_start(SPANS, end=100, newest_start=20, previous=50, mode="chunked")
    assert (decision.start, decision.reason) == (50, TrimReason.APPENDED)


def test_chunked_trims_to_low_water_once_the_previous_start_no_longer_fits() -> None:
    decision = trim_start(SPANS, end=100, newest_start=40, previous=30, mode="chunked", low_water=50, room_chars=600)
    assert (decision.start, decision.reason) == (70, TrimReason.TRIMMED)  # 3 groups = 300 chars <= 50% of 600


def test_a_previous_start_that_is_not_a_group_start_trims() -> None:
    decision = trim_start(SPANS, end=100, newest_start=40, previous=55, mode="chunked", room_chars=600)
    assert decision.reason is TrimReason.TRIMMED and decision.start in {span.start for span in SPANS}


def test_low_water_also_bounds_tokens_and_groups() -> None:
    by_tokens = trim_start(SPANS, end=100, newest_start=0, previous=-1, mode="chunked", low_water=50, room_tokens=100)
    assert by_tokens.start == 90  # one group of 30 tokens fits under 50 tokens, two do not
    by_groups = trim_start(SPANS, end=100, newest_start=0, previous=-1, mode="chunked", low_water=60, max_groups=5)
    assert by_groups.start == 70  # 60% of 5 groups is 3


def test_history_config_refuses_a_bad_policy() -> None:
    data = default_config().model_dump(mode="python")
    for bad in ({"trim": "oldest"}, {"low_water": 0}, {"low_water": 101}, {"trim": "chunked", "extra": 1}):
        data["history"] = bad
        with pytest.raises(ValueError):
            parse_config(data, "test")


GOVERNORS = Governors(turn_window=1_000, char_cap=6_000, chars_per_token=3)


def outbound_session(history: list[dict[str, Any]], config: HistoryConfig, turns: int) -> list[int]:
    """The start of each request of a conversation growing one turn at a time (the current turn is the last)."""
    state = TrimState()
    starts = []
    for count in range(1, turns + 1):
        wire = history[: len(conversation(count, pad=40))]
        bound = bound_outbound(wire, governors=GOVERNORS, window=None, instruction_chars=0)
        budget = history_char_budget(GOVERNORS, None, 0)
        bound, _ = trim_outbound(
            wire, bound, history=config, previous=state.start, governors=GOVERNORS, char_budget=budget
        )
        assert bound.chars <= budget
        assert starts_group(wire, bound.start) if bound.start < len(wire) else True
        check_tool_pairing(wire[bound.start :], "kept")
        state.start = bound.start
        starts.append(bound.start)
    return starts


def test_chunked_trim_reads_each_message_once() -> None:
    """The current exchange is read once: the settled groups continue from the same scan."""
    history = conversation(30, pad=40)
    bound = bound_outbound(history, governors=GOVERNORS, window=None, instruction_chars=0)
    reads: list[int] = []

    def text_of(index: int) -> str:
        reads.append(index)
        return compact_json(history[index])

    budget = history_char_budget(GOVERNORS, None, 0)
    chunked = HistoryConfig(trim="chunked")
    trim_outbound(history, bound, history=chunked, previous=0, governors=GOVERNORS, char_budget=budget, text_of=text_of)
    assert reads and sorted(reads) == sorted(set(reads))


@settings(max_examples=15, deadline=None)
@given(low_water=st.integers(20, 90), turns=st.integers(5, 60))
def test_chunked_moves_its_start_rarely_and_forward_only(low_water: int, turns: int) -> None:
    history = conversation(turns, pad=40)
    chunked = outbound_session(history, HistoryConfig(trim="chunked", low_water=low_water), turns)
    newest = outbound_session(history, HistoryConfig(), turns)
    assert chunked == sorted(chunked)  # never moves back
    assert all(c >= n for c, n in zip(chunked, newest, strict=True))  # never keeps more than fits
    assert len(set(chunked)) <= len(set(newest))  # moves at most as often as newest
    assert outbound_session(history, HistoryConfig(trim="chunked", low_water=low_water), turns) == chunked


def test_chunked_moves_far_less_often_than_newest_past_the_cap() -> None:
    history = conversation(80, pad=40)
    newest = outbound_session(history, HistoryConfig(), 80)
    chunked = outbound_session(history, HistoryConfig(trim="chunked", low_water=60), 80)
    assert len(set(newest)) > 3 * len(set(chunked))


def test_the_agent_sends_a_byte_stable_prefix_between_trims() -> None:
    """A real Agent: with chunked, consecutive requests share their history prefix until a trim."""
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        return ModelResponse(parts=[TextPart("answer " + "y" * 200)])

    bounds: list[OutboundBound] = []
    capability: GovernedContext[None] = GovernedContext(
        governors=Governors(turn_window=1_000, char_cap=30_000, chars_per_token=3),
        history=HistoryConfig(trim="chunked", low_water=50),
        on_bound=bounds.append,
    )
    agent = Agent(FunctionModel(model), capabilities=[capability])
    history: list[ModelMessage] = []
    for index in range(40):
        result = asyncio.run(agent.run(f"turn {index} " + "x" * 200, message_history=history))
        history = result.all_messages()
    assert len(history) == 80  # the run's history is whole
    reasons = [b.trim.reason for b in bounds if b.trim is not None]
    assert TrimReason.TRIMMED in reasons and reasons.count(TrimReason.APPENDED) > 3 * reasons.count(TrimReason.TRIMMED)
    for before, after, bound in zip(seen, seen[1:], bounds[1:], strict=False):
        if bound.trim is not None and bound.trim.reason is TrimReason.APPENDED:
            assert to_wire(after[: len(before)]) == to_wire(before)  # the earlier request is a prefix


def test_the_orchestrator_continues_from_the_previous_history_start() -> None:
    data = default_config().model_dump(mode="python")
    data["governors"] = {"turn_window": 1_000, "char_cap": 5_000}
    data["history"] = {"trim": "chunked", "low_water": 50}
    orchestrator = ContextOrchestrator(parse_config(data, "test"))
    previous: int | None = None
    starts, reasons = [], []
    history: list[dict[str, Any]] = []
    for index in range(40):
        assembled = orchestrator.assemble(
            run_id=f"r{index}", session_id="s", query="next?", history=history, history_trim=previous
        )
        kept = assembled.history
        assert history[assembled.history_start :] == kept
        assert assembled.used_chars <= assembled.bounds.char_cap
        previous = assembled.history_start
        starts.append(previous)
        reasons.append(assembled.trim.reason if assembled.trim else None)
        assert assembled.to_json()["history_trim"]["start"] == previous
        history += turn(index, pad=60)
    assert starts == sorted(starts)
    assert TrimReason.TRIMMED in reasons and reasons.count(TrimReason.APPENDED) > 2 * reasons.count(TrimReason.TRIMMED)
    assert group_messages(history)  # still whole
