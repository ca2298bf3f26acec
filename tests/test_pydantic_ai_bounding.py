"""The pure bounding path of the Pydantic AI adapter, over random conversations.

An independent oracle (groups by run id, or for legacy messages at requests without
tool returns) says which suffix each request must keep; ``bound_outbound`` must agree,
and what it keeps must never orphan a tool return or leave a tool call dangling.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from lychd_core.config import Governors
from lychd_core.errors import ContextBudgetExceededError, HistoryError
from lychd_core.integrations import bound_outbound, history_char_budget, outbound_char_cap

Message = dict[str, Any]


def chars(message: Message) -> int:
    counted = {key: value for key, value in message.items() if key != "instructions"}
    return len(json.dumps(counted, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


@dataclass
class Conversation:
    messages: list[Message]
    with_run_ids: bool


@st.composite
def conversations(draw: st.DrawFn) -> Conversation:
    with_run_ids = draw(st.booleans())
    runs = draw(st.integers(min_value=1, max_value=25))
    messages: list[Message] = []
    call = 0
    text = st.text(alphabet="abcdé xyz", max_size=60)
    for run in range(runs):
        run_id = f"run-{run}" if with_run_ids else None
        run_messages: list[Message] = []

        def add(
            kind: str, parts: list[dict[str, Any]], run_id: str | None = run_id, into: list[Message] = run_messages
        ) -> None:
            message: Message = {"kind": kind, "parts": parts, "run_id": run_id}
            if kind == "request" and draw(st.booleans()):
                message["instructions"] = draw(st.text(max_size=400))  # a record, not resent
            into.append(message)

        add("request", [{"part_kind": "user-prompt", "content": draw(text)}])
        for _ in range(draw(st.integers(min_value=0, max_value=3))):
            ids = [f"c{call + i}" for i in range(draw(st.integers(min_value=1, max_value=2)))]
            call += len(ids)
            add("response", [{"part_kind": "tool-call", "tool_name": "t", "tool_call_id": i, "args": {}} for i in ids])
            returns = [{"part_kind": "tool-return", "tool_call_id": i, "content": draw(text)} for i in ids]
            if with_run_ids and draw(st.booleans()):
                returns.append({"part_kind": "retry-feedback", "content": "again"})
            add("request", returns)
        add("response", [{"part_kind": "text", "content": draw(text)}])
        if run == runs - 1:  # the in-progress exchange ends with the request being sent
            cut = draw(st.sampled_from([i for i, m in enumerate(run_messages) if m["kind"] == "request"]))
            run_messages = run_messages[: cut + 1]
        messages.extend(run_messages)
    return Conversation(messages, with_run_ids)


governors_st = st.builds(
    Governors,
    turn_window=st.integers(min_value=-2, max_value=8),
    char_cap=st.integers(min_value=1, max_value=12_000) | st.integers(min_value=1_000, max_value=12_000),
    chars_per_token=st.integers(min_value=2, max_value=4),
)
windows = st.none() | st.integers(min_value=300, max_value=4_000)


def oracle_groups(conversation: Conversation) -> list[tuple[int, int]]:
    """(start, end) of each complete group, oldest first, computed independently."""
    messages = conversation.messages
    starts = []
    for index, message in enumerate(messages):
        if conversation.with_run_ids:
            opens = index == 0 or messages[index - 1]["run_id"] != message["run_id"]
        else:
            kinds = {part["part_kind"] for part in message["parts"]}
            opens = message["kind"] == "request" and not kinds & {"tool-return", "retry-prompt"}
        if opens:
            starts.append(index)
    ends = [*starts[1:], len(messages)]
    return list(zip(starts, ends, strict=True))


def oracle_start(conversation: Conversation, turn_window: int, budget: int) -> int | None:
    groups = oracle_groups(conversation)
    size = [sum(chars(m) for m in conversation.messages[a:b]) for a, b in groups]
    if size[-1] > budget:
        return None
    used, start, kept = size[-1], groups[-1][0], 0
    for (group_start, _), group_size in zip(reversed(groups[:-1]), reversed(size[:-1]), strict=True):
        if kept >= turn_window or used + group_size > budget:
            break
        used, start, kept = used + group_size, group_start, kept + 1
    return start


def assert_tool_exchanges_whole(sent: list[Message]) -> None:
    called: set[str] = set()
    answered: set[str] = set()
    for message in sent:
        for part in message["parts"]:
            if part["part_kind"] == "tool-return":
                assert part["tool_call_id"] in called, "orphan tool return sent"
                answered.add(part["tool_call_id"])
            if part["part_kind"] == "tool-call":
                called.add(part["tool_call_id"])
    assert called == answered, f"dangling tool calls sent: {sorted(called - answered)}"


@settings(max_examples=300, deadline=None)
@given(conversations(), governors_st, windows, st.integers(min_value=0, max_value=600))
def test_bounding_keeps_the_oracle_suffix_of_whole_groups(
    conversation: Conversation, governors: Governors, window: int | None, instruction_chars: int
) -> None:
    cap = outbound_char_cap(governors, window)
    if instruction_chars > cap:
        with pytest.raises(ContextBudgetExceededError) as caught:
            bound_outbound(
                conversation.messages, governors=governors, window=window, instruction_chars=instruction_chars
            )
        assert caught.value.parts == {"instructions": instruction_chars}
        event("refused: instructions")
        return
    budget = history_char_budget(governors, window, instruction_chars)
    expected = oracle_start(conversation, governors.turn_window, budget)
    if expected is None:
        with pytest.raises(ContextBudgetExceededError) as refused:
            bound_outbound(
                conversation.messages, governors=governors, window=window, instruction_chars=instruction_chars
            )
        assert refused.value.available == budget
        event("refused: current exchange")
        return
    bound = bound_outbound(
        conversation.messages, governors=governors, window=window, instruction_chars=instruction_chars
    )
    assert bound.start == expected
    event("omitted some" if bound.start else "kept all")
    sent = conversation.messages[bound.start :]
    assert sum(chars(m) for m in sent) == bound.chars
    assert bound.chars + instruction_chars <= cap
    assert bound.kept_groups <= max(governors.turn_window, 0)
    assert bound.omitted_messages == bound.start
    assert sent[-1] is conversation.messages[-1] and sent[-1]["kind"] == "request"
    assert_tool_exchanges_whole(sent[:-1] if sent[-1]["parts"][0]["part_kind"] == "user-prompt" else sent)
    if conversation.with_run_ids and bound.start > 0:  # a run is never split
        assert conversation.messages[bound.start - 1]["run_id"] != sent[0]["run_id"]


@settings(max_examples=100, deadline=None)
@given(conversations(), governors_st)
def test_recorded_instructions_do_not_count(conversation: Conversation, governors: Governors) -> None:
    stripped = [{k: v for k, v in m.items() if k != "instructions"} for m in conversation.messages]
    try:
        with_records = bound_outbound(conversation.messages, governors=governors, window=None, instruction_chars=0)
    except ContextBudgetExceededError:
        with pytest.raises(ContextBudgetExceededError):
            bound_outbound(stripped, governors=governors, window=None, instruction_chars=0)
        return
    assert bound_outbound(stripped, governors=governors, window=None, instruction_chars=0) == with_records


def test_bounding_reads_newest_first_and_leaves_messages_alone() -> None:
    def run(run_id: str, *contents: str) -> list[Message]:
        kinds = ["request", "response"]
        return [
            {
                "kind": kinds[i % 2],
                "parts": [{"part_kind": ("user-prompt", "text")[i % 2], "content": c}],
                "run_id": run_id,
            }
            for i, c in enumerate(contents)
        ]

    broken = {"kind": "request", "parts": [{"part_kind": 42}], "run_id": "a"}
    history = [broken, *run("b", "hi", "yo"), *run("c", "and", "so"), *run("d", "?")]
    before = copy.deepcopy(history)
    bound = bound_outbound(history, governors=Governors(turn_window=1), window=None, instruction_chars=0)
    assert (bound.start, bound.kept_groups, bound.omitted_messages) == (3, 1, 3)
    assert history == before
    with pytest.raises(HistoryError, match="part kind 42"):  # reading further back meets the bad message
        bound_outbound(history, governors=Governors(), window=None, instruction_chars=0)


@pytest.mark.parametrize(
    "history, fragment",
    [
        ("nope", "expected a message object"),
        ([{"kind": "request", "parts": [{"part_kind": 7}]}], "unknown request part kind 7"),
        ([{"kind": "request", "parts": [{"text": "no kind"}]}], "unknown request part kind None"),
        ([{"kind": "response", "parts": [{"part_kind": "user-prompt"}]}], "unknown response part kind 'user-prompt'"),
        (
            [
                {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "x"}]},
                {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_call_id": "ghost", "content": "y"}]},
            ],
            "ghost",
        ),
    ],
)
def test_bad_history_is_a_typed_error(history: Any, fragment: str) -> None:
    with pytest.raises(HistoryError, match=fragment):
        bound_outbound(history, governors=Governors(), window=None, instruction_chars=0)


def test_a_legacy_output_retry_stays_with_the_exchange_it_answers() -> None:
    def message(kind: str, part_kind: str, content: str) -> Message:
        return {"kind": kind, "parts": [{"part_kind": part_kind, "content": content}], "run_id": None}

    history = [
        message("request", "user-prompt", "What is 2+2?"),
        message("response", "text", "five"),
        message("request", "retry-feedback", "wrong, try again"),
        message("response", "text", "four"),
        message("request", "user-prompt", "And 3+3?"),
    ]
    bound = bound_outbound(history, governors=Governors(turn_window=1), window=None, instruction_chars=0)
    assert history[bound.start]["parts"][0]["part_kind"] == "user-prompt", "a retry was sent without its question"
