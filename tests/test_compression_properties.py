"""Properties of compression in assembly, over random histories and governors."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.assembly import ContextOrchestrator
from lychd_core.history import check_tool_pairing, group_messages, tool_call_ids
from tests.support.conversations import answer, tool_call, tool_return, user
from tests.test_compression_assembly import config


@st.composite
def histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    bodies = draw(st.lists(st.integers(0, 6_000), min_size=1, max_size=14))
    messages: list[dict[str, Any]] = []
    for i, body in enumerate(bodies):
        messages += [
            user(f"q{i}"),
            tool_call("read", f"c{i}"),
            tool_return("read", f"c{i}", "b" * body),
            answer(f"a{i}"),
        ]
    return messages


def is_digest(message: dict[str, Any]) -> bool:
    return "earlier in this conversation" in str(message["parts"][0].get("content", ""))


@settings(max_examples=40, deadline=None)
@given(histories(), st.integers(1, 8), st.integers(3_000, 30_000))
def test_compression_keeps_whole_exchanges_within_the_bounds(
    history: list[dict[str, Any]], turn_window: int, char_cap: int
) -> None:
    before = copy.deepcopy(history)
    plain = ContextOrchestrator(config("never", char_cap=char_cap, turn_window=turn_window)).assemble(
        run_id="r", session_id="s", query="q", history=history
    )
    orchestrator = ContextOrchestrator(config("over-budget", char_cap=char_cap, turn_window=turn_window, scan_groups=4))
    compressed = orchestrator.assemble(run_id="r", session_id="s", query="q", history=history)
    again = orchestrator.assemble(run_id="r", session_id="s", query="q", history=history)
    assert history == before  # sources are never changed
    assert compressed.to_json() == again.to_json()  # deterministic
    assert compressed.used_chars <= compressed.bounds.char_cap
    kept = compressed.history
    check_tool_pairing(kept, "kept")
    exchanges = [m for m in kept if not is_digest(m)]
    assert len(group_messages(exchanges)) >= len(group_messages(plain.history))
    assert len(group_messages(exchanges)) <= turn_window
    originals = {tuple(tool_call_ids(m)) for m in history if m["kind"] == "response"}
    assert all(tuple(tool_call_ids(m)) in originals for m in exchanges if m["kind"] == "response")
    if not compressed.compression or not compressed.compression["ran"]:
        assert kept == plain.history
