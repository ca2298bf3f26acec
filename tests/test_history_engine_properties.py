"""The one history engine (``select_history``, the graph selector every adapter uses) keeps
exactly what the reference rule keeps: the newest group whole or a refusal, then the
newest complete settled groups while they fit the turn window and the characters left.
Checked against a direct implementation of that rule on generated conversations with
parallel tool calls, retries and uneven sizes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core import history
from lychd_core.errors import ContextBudgetExceededError, HistoryError
from lychd_core.history import check_tool_pairing, group_messages
from lychd_core.integrations.history_engine import select_history
from tests.support import conversations as wire
from tests.support.conversations import Message, answer, retry, tool_call, tool_return, user

turn_shapes = st.lists(
    st.tuples(st.integers(0, 3), st.booleans(), st.integers(0, 300)),  # parallel calls, a retry, padding
    min_size=1,
    max_size=12,
)


def conversation(shapes: list[tuple[int, bool, int]]) -> list[Message]:
    messages: list[Message] = []
    for index, (calls, retried, pad) in enumerate(shapes):
        ids = [f"c{index}-{n}" for n in range(calls)]
        messages.append(user(f"question {index} " + "x" * pad))
        if ids:
            messages.append({"kind": "response", "parts": [tool_call("t", i)["parts"][0] for i in ids], "run_id": None})
            messages.append(
                {"kind": "request", "parts": [tool_return("t", i, "r")["parts"][0] for i in ids], "run_id": None}
            )
            if retried:
                messages += [tool_call("t", f"{ids[0]}-again"), retry("t", f"{ids[0]}-again")]
        messages.append(answer(f"answer {index}"))
    return messages


def reference(messages: list[Message], turn_window: int, budget: int) -> tuple[int, int] | None:
    """(start, kept settled groups), or ``None`` for a refusal."""
    groups = group_messages(messages)
    current = groups[-1]
    if current.chars > budget:
        return None
    used, start, kept = current.chars, current.start, 0
    for group in reversed(groups[:-1]):
        if kept >= turn_window or used + group.chars > budget:
            break
        used, start, kept = used + group.chars, group.start, kept + 1
    return start, kept


@settings(max_examples=60, deadline=None)
@given(turn_shapes, st.integers(0, 6), st.integers(50, 6_000))
def test_the_selector_keeps_what_the_reference_rule_keeps(
    shapes: list[tuple[int, bool, int]], turn_window: int, budget: int
) -> None:
    messages = conversation(shapes)
    expected = reference(messages, turn_window, budget)
    if expected is None:
        try:
            select_history(messages, turn_window=turn_window, char_budget=budget, chars_per_token=3)
        except ContextBudgetExceededError:
            return
        raise AssertionError("a current exchange over the budget was not refused")
    selection = select_history(messages, turn_window=turn_window, char_budget=budget, chars_per_token=3)
    assert (selection.bounded.start, selection.bounded.kept_groups) == expected
    assert selection.bounded.chars <= budget
    check_tool_pairing(messages[selection.bounded.start :], "kept")  # no orphan return is ever sent
    omitted = selection.omitted_by_reason()
    assert set(omitted) <= {"character-limit", "outside-turn-window"}


def test_each_message_is_checked_once_even_when_groups_follow_run_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """A message with a ``run_id`` makes the scan read its older neighbour; that read checks
    it, and the scan does not check it again at its own turn."""
    checked: list[int | None] = []
    real = history.check_message

    def counting(message: object, where: str, index: int | None = None) -> Message:
        checked.append(index)
        return real(message, where, index)

    monkeypatch.setattr(history, "check_message", counting)
    for run_ids in (False, True):
        checked.clear()
        messages = wire.conversation(6, tools=2, run_ids=run_ids)
        groups = group_messages(messages)
        assert [(g.start, g.end) for g in groups] == [(6 * k, 6 * k + 6) for k in range(6)]
        assert sorted(checked) == list(range(len(messages))), run_ids


def test_a_bad_older_neighbour_of_a_run_is_still_refused() -> None:
    messages = wire.conversation(2, run_ids=True)
    messages[3] = {"kind": "response", "parts": "not a list", "run_id": "run-0"}
    with pytest.raises(HistoryError, match=r"history\[3\]: 'parts' must be a list"):
        group_messages(messages)
