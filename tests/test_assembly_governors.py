"""Assembly governors: newest complete groups, floor overflow, continuation, windows.

Ports the reference text's verification list (context-adr "Verification").
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lychd_core.assembly import ContextOrchestrator, Grant, request_input_limit
from lychd_core.blocks import Block, Layer
from lychd_core.config import LychdConfig, default_config
from lychd_core.errors import AssemblyError, BudgetError, ContextBudgetExceededError, HistoryError
from lychd_core.history import check_tool_pairing, compact_json, group_messages, starts_group
from tests.support.conversations import conversation, tool_return, turn, user


def config(turn_window: int = 20, char_cap: int = 96_000) -> LychdConfig:
    base = default_config()
    return base.model_copy(
        update={"governors": base.governors.model_copy(update={"turn_window": turn_window, "char_cap": char_cap})}
    )


def orchestrator(**kw: Any) -> ContextOrchestrator:
    return ContextOrchestrator(config(**kw))


def identity(text: str = "You are careful.") -> list[Block]:
    return [Block(layer=Layer.IDENTITY, key="identity", text=text)]


def kept_is_suffix_of_complete_groups(history: list[dict[str, Any]], kept: list[dict[str, Any]]) -> bool:
    start = len(history) - len(kept)
    return history[start:] == kept and (start == len(history) or starts_group(history, start))


def test_keeps_the_newest_complete_groups_within_the_turn_window() -> None:
    history = conversation(30, tools=2)
    assembled = orchestrator(turn_window=5).assemble(run_id="r", session_id="s", query="next?", history=history)
    kept = assembled.history
    assert len(group_messages(kept)) == 5
    assert kept_is_suffix_of_complete_groups(history, kept)
    check_tool_pairing(kept, "kept")


def test_character_cap_keeps_only_groups_that_fit_and_never_splits_one() -> None:
    history = conversation(40, tools=1, pad=500)
    group_chars = sum(len(compact_json(m)) for m in turn(0, tools=1, pad=500))
    cap = 4 * group_chars + 300
    assembled = orchestrator(char_cap=cap).assemble(run_id="r", session_id="s", query="q", history=history)
    kept = assembled.history
    assert kept_is_suffix_of_complete_groups(history, kept)
    assert 1 <= len(group_messages(kept)) <= 4
    assert assembled.used_chars <= cap
    omitted = [e for e in assembled.plan.explanations.values() if not e.selected]
    assert omitted, "the first group that does not fit is explained, not silently dropped"


def test_non_positive_turn_window_keeps_no_history_but_the_whole_continuation() -> None:
    history = conversation(3)
    continuation = turn(99, tools=2)
    for window in (0, -1):
        assembled = orchestrator(turn_window=window).assemble(
            run_id="r", session_id="s", query="q", history=history, continuation=continuation
        )
        assert assembled.history == [] and assembled.continuation == continuation


def test_floor_overflow_raises_with_figures() -> None:
    with pytest.raises(ContextBudgetExceededError) as info:
        orchestrator(char_cap=1000).assemble(run_id="r", session_id="s", query="q", identity=identity("x" * 2000))
    error = info.value
    assert error.required > error.available == 1000
    assert error.parts["identity"] == 2000 and error.parts["query"] == 1


def test_query_alone_over_the_cap_is_refused() -> None:
    with pytest.raises(ContextBudgetExceededError, match="query"):
        orchestrator(char_cap=500).assemble(run_id="r", session_id="s", query="?" * 501)


def test_continuation_is_indivisible() -> None:
    continuation = turn(1, tools=3, pad=400)
    size = sum(len(compact_json(m)) for m in continuation)
    with pytest.raises(ContextBudgetExceededError) as info:
        orchestrator(char_cap=size // 2).assemble(run_id="r", session_id="s", query="q", continuation=continuation)
    assert info.value.parts["continuation"] >= size


def test_generation_window_takes_precedence_over_the_spec() -> None:
    grant = Grant(grant_id="g1", capability_key="m", max_context=1_000, spec_max_context=100_000)
    assembled = orchestrator().assemble(run_id="r", session_id="s", query="q", grant=grant, reserve_output=100)
    assert assembled.window == 1_000
    assert assembled.bounds.char_cap == 3_000  # min(96,000, 3 x 1,000)
    spec_only = Grant(grant_id="g2", capability_key="m", spec_max_context=10_000)
    assert orchestrator().assemble(run_id="r2", session_id="s", query="q", grant=spec_only).window == 10_000


def test_request_input_limit() -> None:
    assert request_input_limit(8_000, 1_000) == 7_000
    with pytest.raises(ContextBudgetExceededError):
        request_input_limit(1_000, 1_000)
    with pytest.raises(BudgetError):
        request_input_limit(1_000, -1)


def test_reserve_at_or_over_the_window_is_refused() -> None:
    with pytest.raises(ContextBudgetExceededError, match="output reserve 1000"):
        orchestrator().assemble(run_id="r", session_id="s", query="q", window=1_000, reserve_output=1_000)


@pytest.mark.parametrize(
    ("history", "error"),
    [
        ({"kind": "request"}, AssemblyError),
        ([{"kind": "request", "parts": [{"part_kind": 7}]}], HistoryError),  # unknown kinds pass as opaque parts
        (["not a message"], HistoryError),
    ],
)
def test_bad_history_is_a_typed_error(history: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        orchestrator().assemble(run_id="r", session_id="s", query="q", history=history)


def test_continuation_starting_with_an_orphan_tool_return_is_refused() -> None:
    with pytest.raises(HistoryError, match="tool call 'c9'"):
        orchestrator().assemble(
            run_id="r", session_id="s", query="q", continuation=[tool_return("search", "c9", "ok"), user("hi")]
        )


def test_assembly_is_deterministic() -> None:
    history = conversation(25, tools=2, pad=100)
    a = orchestrator().assemble(run_id="r", session_id="s", query="q", identity=identity(), history=history)
    b = orchestrator().assemble(run_id="r", session_id="s", query="q", identity=identity(), history=history)
    assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)


def test_appending_a_group_leaves_earlier_bytes_identical() -> None:
    history = conversation(6, tools=1, pad=50)
    first = orchestrator().assemble(run_id="r", session_id="s", query="q", history=history)
    longer = orchestrator().assemble(run_id="r", session_id="s", query="q", history=[*history, *turn(6)])
    before = [compact_json(m) for m in first.history]
    after = [compact_json(m) for m in longer.history]
    assert after[: len(before)] == before
    assert first.prefix_digest == longer.prefix_digest


@given(
    turns=st.integers(0, 30),
    tools=st.integers(0, 3),
    pad=st.integers(0, 300),
    turn_window=st.integers(-1, 25),
    cap=st.integers(200, 20_000),
    run_ids=st.booleans(),
)
def test_kept_history_is_always_a_bounded_suffix_of_complete_groups(
    turns: int, tools: int, pad: int, turn_window: int, cap: int, run_ids: bool
) -> None:
    history = conversation(turns, tools=tools, pad=pad, run_ids=run_ids)
    assembled = orchestrator(turn_window=turn_window, char_cap=cap).assemble(
        run_id="r", session_id="s", query="q", history=history
    )
    kept = assembled.history
    assert kept_is_suffix_of_complete_groups(history, kept)
    assert len(group_messages(kept)) <= max(turn_window, 0)
    assert assembled.used_chars <= cap
    check_tool_pairing(kept, "kept")


@given(
    turns=st.integers(0, 12),
    pad=st.integers(0, 400),
    blocks=st.lists(st.integers(1, 3_000), max_size=6),
    cap=st.integers(500, 12_000),
)
def test_nothing_is_silently_truncated(turns: int, pad: int, blocks: list[int], cap: int) -> None:
    """Every input is kept byte for byte or explained; no text is ever cut to fit."""
    history = conversation(turns, pad=pad)
    codex = [Block(layer=Layer.CODEX, key=f"codex:{i}", text=chr(97 + i) * size) for i, size in enumerate(blocks)]
    try:
        assembled = orchestrator(char_cap=cap).assemble(
            run_id="r", session_id="s", query="q", history=history, codex=codex
        )
    except ContextBudgetExceededError as refused:
        assert refused.required > refused.available
        return
    kept = {block.key: block for block in assembled.floor}
    for block in codex:
        assert kept.get(block.key) == block or assembled.plan.explanations[f"L2:{block.key}"].selected is False
    assert assembled.history == history[assembled.history_start :]
    explained = set(assembled.plan.explanations)
    older = [item.what for item in assembled.not_nodes if item.what.startswith("history[")]
    covered = sum(e.chars for k, e in assembled.plan.explanations.items() if k.startswith("history:"))
    assert covered + sum(len(compact_json(m)) for m in history[: _older_end(older)]) == sum(
        len(compact_json(m)) for m in history
    )
    assert {"query"} <= explained


def _older_end(older: list[str]) -> int:
    """End index of the 'history[0:N]' summary, or 0 when every group became a node."""
    return int(older[0].split(":")[1].rstrip("]")) if older else 0


def test_the_early_refusal_counts_the_known_floor() -> None:
    """Issue 26: a query over the cap was refused before the floor was counted, so ``required``
    left the floor out while the message said "floor, query and continuation need ..."."""
    with pytest.raises(ContextBudgetExceededError) as info:
        orchestrator(char_cap=500).assemble(run_id="r", session_id="s", query="?" * 501, identity=identity("x" * 300))
    error = info.value
    assert error.parts["identity"] == 300 and error.parts["query"] == 501 and error.parts["environment"] > 0
    assert error.required == sum(error.parts.values()) > 801
    assert f"need {error.required} characters" in str(error)
    # The same figures as a refusal after projection would give: no part is named twice or missed.
    assert set(error.parts) == {"identity", "codex", "environment", "karma", "query", "continuation"}
