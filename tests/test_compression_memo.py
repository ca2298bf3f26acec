"""A settled group offered again is not elided again; anything that changes its output is a new key."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from lychd_compressors import elision
from lychd_compressors.elision import ToolOutputElision, ToolOutputElisionOptions

from lychd_core.assembly import ContextOrchestrator
from lychd_core.compression.layouts import ProposalLayouts
from lychd_core.compression.memo import BoundedMemo
from lychd_core.compression.runner import pinned
from lychd_core.digests import text_digest
from lychd_core.families import CompactionProposal, CompactionRequest, CompactionSource, SourceRange
from lychd_core.history import compact_json
from lychd_core.vocabulary import ContextClass, Provenance
from tests.support.conversations import answer, tool_call, tool_return, user
from tests.test_compression_assembly import assemble, big_tool_history, config


def test_bounded_memo_keeps_the_most_recently_used() -> None:
    memo: BoundedMemo[str, int] = BoundedMemo(2)
    memo.put("a", 1)
    memo.put("b", 2)
    assert memo.get("a") == 1  # "a" is now the most recent
    memo.put("c", 3)
    assert (memo.get("a"), memo.get("b"), memo.get("c"), len(memo)) == (1, None, 3, 2)
    with pytest.raises(ValueError, match="at least one entry"):
        BoundedMemo(0)


def group_source(index: int, body: str, node_id: str | None = None) -> CompactionSource:
    messages = (user(f"q{index}"), tool_call("read", f"c{index}"), tool_return("read", f"c{index}", body), answer("a"))
    texts = tuple(compact_json(m) for m in messages)
    content = "".join(texts)
    return CompactionSource(
        node_id=node_id or f"history:{index:09d}-{index + 4:09d}",
        content=content,
        digest=text_digest(content),
        context_class=ContextClass.HISTORY,
        provenance=Provenance.AGENT,
        token_estimate=len(content) // 3 + 1,
        recency=index,
        omitted=True,
        messages=messages,
        message_texts=texts,
    )


def request(*sources: CompactionSource, max_chars: int = 4_000, **options: Any) -> tuple[Any, Any]:
    compressor = ToolOutputElision()
    opts = ToolOutputElisionOptions(**options)
    return compressor, CompactionRequest(sources, pinned(compressor, opts).policy, max_chars, 3)


def test_a_settled_group_offered_again_gets_the_same_proposal() -> None:
    compressor, req = request(group_source(0, "z" * 5_000), group_source(4, "w" * 5_000))
    first = compressor.propose(req, ToolOutputElisionOptions())
    again = compressor.propose(req, ToolOutputElisionOptions())
    assert len(first) == 2 and all(a is b for a, b in zip(first, again, strict=True))
    compressor.forget()
    anew = compressor.propose(req, ToolOutputElisionOptions())
    assert anew == first and all(a is not b for a, b in zip(first, anew, strict=True))


@pytest.mark.parametrize(
    "change",
    ["body", "node id", "max chars", "head chars"],
)
def test_whatever_changes_the_output_is_a_new_key(change: str) -> None:
    source = group_source(0, "z" * 5_000)
    compressor, req = request(source)
    (before,) = compressor.propose(req, ToolOutputElisionOptions())
    options = ToolOutputElisionOptions()
    if change == "body":
        req = CompactionRequest((group_source(0, "y" * 5_000),), req.policy, req.max_chars, 3)
    elif change == "node id":
        req = CompactionRequest((group_source(0, "z" * 5_000, node_id="history:x"),), req.policy, req.max_chars, 3)
    elif change == "max chars":
        req = CompactionRequest(req.sources, req.policy, 600, 3)
    else:
        options = ToolOutputElisionOptions(head_chars=10)
        req = CompactionRequest(req.sources, pinned(compressor, options).policy, req.max_chars, 3)
    after = compressor.propose(req, options)
    fresh = ToolOutputElision().propose(req, options)
    assert after == fresh, "a memo hit must give exactly what a fresh compressor gives"
    assert after != (before,)


def test_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(elision, "MEMO_ENTRIES", 3)
    compressor, req = request(*(group_source(4 * i, "z" * 5_000) for i in range(10)))
    assert len(compressor.propose(req, ToolOutputElisionOptions())) == 10
    assert len(compressor._memo) == 3


def test_an_edited_settled_body_is_elided_anew_at_the_next_call() -> None:
    """Assembly twice over one history whose settled tool return changes in place between calls."""
    cfg = config("over-budget", char_cap=30_000)
    history = big_tool_history(8)
    first = assemble(cfg, history)
    history[2]["parts"][0]["content"] = "edited 0\n" + "e" * 9_000  # the oldest group's return, same dict
    second = assemble(cfg, history)
    fresh = assemble(cfg, [*big_tool_history(8)[:2], history[2], *big_tool_history(8)[3:]])  # new objects
    assert first.history_start == second.history_start == 0  # every group kept, each elided
    oldest_return = second.history[2]["parts"][0]["content"]
    assert oldest_return.startswith("edited 0\n") and first.history[2]["parts"][0]["content"].startswith("line 0\n")
    assert second.compression == fresh.compression != first.compression


def test_derived_history_offered_again_splits_as_parsing_would_and_keeps_the_callers_messages() -> None:
    """The core remembers how a proposal's content splits; kept messages are this call's objects."""
    cfg = config("over-budget", char_cap=30_000)
    first_history, second_history = big_tool_history(8), big_tool_history(8)  # equal, distinct objects
    orchestrator = ContextOrchestrator(cfg)
    first = orchestrator.assemble(run_id="r1", session_id="s", query="next?", history=first_history)
    second = orchestrator.assemble(run_id="r2", session_id="s", query="next?", history=second_history)
    assert first.compression == second.compression and first.history == second.history
    outcome = second.compression_report.outcome
    assert outcome is not None and outcome.history is not None
    for compaction in outcome.compactions:
        messages, texts = outcome.history[compaction.node.id]
        assert "".join(texts) == compaction.node.content
        assert [compact_json(m) for m in messages] == list(texts)
        kept = [m for m in messages if any(m is original for original in second_history)]
        assert len(kept) == 3 and not any(m is original for m in messages for original in first_history)


def test_a_layout_lives_only_as_long_as_its_proposal() -> None:
    """A layout lives with its proposal: a freed one is no longer found (and is swept, see test_derived_node)."""

    def proposal() -> CompactionProposal:
        return CompactionProposal("out", "p@1", "sha256:" + "0" * 64, "{}", (SourceRange("a", 0, 2),), (("a", "d"),))

    layouts = ProposalLayouts()
    first, twin = proposal(), proposal()
    message = user("q")
    layouts.put(first, [message], ("t",), [message])
    assert layouts.get(first) == ((0,), ("t",), 1)
    assert first == twin and layouts.get(twin) is None, "keyed by the object, never by an equal value"
    del first
    gc.collect()
    assert len(layouts) == 0
