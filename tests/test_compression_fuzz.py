"""Arbitrary proposals: validation either succeeds or raises a CompactionError, nothing else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.blocks import Omission
from lychd_core.compression import replace
from lychd_core.errors import CompactionError
from lychd_core.families import CompactionProposal, SourceRange
from tests.support.compaction import POLICY, scenario

IDS = st.sampled_from(["a", "b", "d", "hidden", "tool", "spec", "query", "ghost", "compact:1", "x\ny", ""])
TEXT = st.text(max_size=30) | st.just("word " * 300)


@st.composite
def proposals(draw: st.DrawFn) -> CompactionProposal:
    s = scenario()
    ranges = tuple(
        SourceRange(draw(IDS), draw(st.integers(-5, 1_200)), draw(st.integers(-5, 1_200)))
        for _ in range(draw(st.integers(0, 3)))
    )
    if draw(st.booleans()):
        ranges = tuple(sorted(ranges))
    lineage = tuple(
        (node_id, s.graph[node_id].digest if node_id in s.graph and draw(st.booleans()) else "sha256:" + "0" * 64)
        for node_id in sorted({r.node_id for r in ranges})
    )
    return CompactionProposal(
        output_id=draw(IDS),
        policy_id=draw(st.sampled_from([POLICY.id, "other@1"])),
        policy_digest=draw(st.sampled_from([POLICY.digest, "sha256:" + "1" * 64])),
        content=draw(TEXT),
        ranges=ranges,
        source_digests=lineage if draw(st.booleans()) else lineage[:1],
        invariants=(),
        omissions=(Omission(kind="x", reason="y"),),
    )


@settings(max_examples=300, deadline=None)
@given(proposals())
def test_validation_never_raises_anything_but_a_compaction_error(proposal: CompactionProposal) -> None:
    s = scenario()
    before = s.graph.digest
    try:
        compaction = s.validate(proposal)
    except CompactionError:
        assert s.graph.digest == before
        return
    try:
        replaced = replace(s.graph, [compaction])
    except CompactionError:
        return
    assert proposal.output_id in replaced and all(source not in replaced for source in compaction.replaced)
    assert s.graph.digest == before
