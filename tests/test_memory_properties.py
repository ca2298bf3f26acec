"""Property tests: rebuild determinism, index == full scan, tombstone dominance."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lychd_core.memory import (
    ClaimType,
    Feedback,
    LifecycleState,
    MemoryIndex,
    MemoryQuery,
    MemoryRecord,
    MemoryScope,
    Tombstone,
    replay,
    scan,
)
from lychd_core.memory.scope import SCOPE_FIELDS
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import ContextClass, Operation, Provenance

IDS = ("a", "b", "c", "d", "e", "f")
FEATURES = ("f1", "f2", "f3", "f4")
EVIDENCE = ("e1", "e2", "e3", "e4")
SOURCES = tuple(p for p in Provenance if p is not Provenance.MEMORY)
FAKE_DIGEST = "sha256:" + "0" * 64
SETTINGS = settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _subset(draw: Any, items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(draw(st.sets(st.sampled_from(items)))))


@st.composite
def records(draw: Any) -> MemoryRecord:
    created = draw(st.integers(0, 60))
    observed = created + draw(st.integers(0, 40))
    state = draw(st.sampled_from((LifecycleState.ACTIVE,) * 8 + tuple(LifecycleState)))
    scope = {name: draw(st.sampled_from((None,) * 5 + ("x",) * 4 + ("y",))) for name in SCOPE_FIELDS}
    if not any(scope.values()):
        scope["project"] = "x"
    supporting = _subset(draw, EVIDENCE)
    contradicting = tuple(e for e in _subset(draw, EVIDENCE) if e not in supporting)
    return MemoryRecord(
        memory_id=draw(st.sampled_from(IDS)),
        revision=draw(st.integers(1, 4)),
        scope=MemoryScope(**scope),
        claim_type=draw(st.sampled_from(ClaimType)),
        claim=draw(st.sampled_from(("alpha", "beta\ngamma", "delta"))),
        source_provenance=draw(st.sampled_from(SOURCES)),
        source_events=("ev",),
        supporting=supporting,
        contradicting=contradicting,
        confidence=draw(st.integers(0, 10_000)),
        token_estimate=draw(st.integers(1, 60)),
        created=created,
        observed=observed,
        features=tuple((name, draw(st.integers(1, 10_000))) for name in _subset(draw, FEATURES)),
        feedback=Feedback(draw(st.integers(0, 3)), draw(st.integers(0, 3))),
        reviewed=draw(st.none() | st.integers(created, observed)),
        expires=draw(st.sampled_from((None, None, None, created + 1, 180))),
        state=state,
        quarantined_at=draw(st.integers(created, observed)) if state is LifecycleState.QUARANTINED else None,
        superseded_by="z" if state is LifecycleState.SUPERSEDED else None,
    )


@st.composite
def histories(draw: Any) -> tuple[list[MemoryRecord], list[Tombstone]]:
    recs = draw(st.lists(records(), min_size=3, max_size=16, unique_by=lambda r: (r.memory_id, r.revision)))
    by_identity = {(r.memory_id, r.revision): r for r in recs}
    targets = draw(st.lists(st.tuples(st.sampled_from(IDS), st.integers(1, 4)), max_size=4, unique=True))
    stones = []
    for memory_id, revision in targets:
        held = by_identity.get((memory_id, revision))
        digest = held.digest if held is not None else FAKE_DIGEST
        stones.append(Tombstone(memory_id, revision, digest, 500, "forget"))
    return recs, stones


def _sometimes(draw: Any, default: Any, strategy: Any) -> Any:
    """Mostly the lenient default, so that most generated queries select something."""
    return draw(strategy) if draw(st.sampled_from((False, False, False, True))) else default


@st.composite
def queries(draw: Any) -> MemoryQuery:
    scope = {name: draw(st.sampled_from(("x",) * 18 + ("y", None))) for name in SCOPE_FIELDS}
    profile = None
    if scope["role"] is not None and draw(st.booleans()):
        provenances = _sometimes(draw, frozenset(Provenance), st.sets(st.sampled_from(tuple(Provenance))))
        profile = RoleProfile(
            role=scope["role"],
            visible_classes=frozenset({ContextClass.MEMORY_EVIDENCE}),
            visible_provenances=frozenset(provenances),
            capability_view=(Operation.READ_CONTEXT,),
        )
    return MemoryQuery(
        scope=MemoryScope(**scope),
        now=_sometimes(draw, 150, st.integers(0, 200)),
        role_profile=profile,
        claim_types=frozenset(_sometimes(draw, (), st.sets(st.sampled_from(ClaimType), max_size=4))),
        features=_subset(draw, FEATURES),
        required_features=_sometimes(draw, (), st.sets(st.sampled_from(FEATURES), max_size=2).map(sorted).map(tuple)),
        min_confidence=_sometimes(draw, 0, st.integers(0, 10_000)),
        min_supporting=_sometimes(draw, 0, st.integers(0, 2)),
        max_review_age=_sometimes(draw, None, st.integers(0, 150)),
        max_negative_feedback_bp=_sometimes(draw, 10_000, st.integers(0, 10_000)),
        max_contradiction_bp=_sometimes(draw, 10_000, st.integers(0, 10_000)),
        limit=draw(st.integers(1, 6)),
        max_tokens=_sometimes(draw, None, st.integers(1, 400)),
        recency_horizon=draw(st.integers(1, 300)),
    )


@SETTINGS
@given(histories(), st.randoms(use_true_random=False))
def test_rebuilding_the_same_inputs_gives_the_same_index(history: Any, rnd: random.Random) -> None:
    recs, stones = history
    first = MemoryIndex.build(recs, stones)
    second = MemoryIndex.build(list(recs), list(stones))
    assert first.records == second.records
    assert first.postings_json() == second.postings_json()
    assert first.digest == second.digest
    shuffled_recs, shuffled_stones = list(recs), list(stones)
    rnd.shuffle(shuffled_recs)
    rnd.shuffle(shuffled_stones)
    assert MemoryIndex.build(shuffled_recs, shuffled_stones).digest == first.digest


@SETTINGS
@given(histories())
def test_tombstones_dominate_at_or_below_their_revision(history: Any) -> None:
    recs, stones = history
    highest: dict[str, int] = {}
    for stone in stones:
        highest[stone.memory_id] = max(stone.revision, highest.get(stone.memory_id, 0))
    survivors: dict[str, MemoryRecord] = {}
    for record in recs:
        if record.revision <= highest.get(record.memory_id, 0):
            continue
        held = survivors.get(record.memory_id)
        if held is None or record.revision > held.revision:
            survivors[record.memory_id] = record
    view = replay(recs, stones)
    assert view.records == tuple(survivors[k] for k in sorted(survivors))
    assert {(r.memory_id, r.revision) for r in view.forgotten} == {
        (r.memory_id, r.revision) for r in recs if r.revision <= highest.get(r.memory_id, 0)
    }
    assert MemoryIndex.build(recs, stones).records == view.records
    # Replaying the survivors with the same tombstones keeps them: a newer record outlives its tombstone.
    assert replay(view.records, stones).records == view.records


@SETTINGS
@given(histories(), st.lists(queries(), min_size=1, max_size=3))
def test_index_retrieval_equals_a_full_scan_of_the_active_view(history: Any, asks: list[MemoryQuery]) -> None:
    recs, stones = history
    view = replay(recs, stones)
    index = MemoryIndex(view)
    for query in asks:
        full = scan(view, query)
        fast = index.retrieve(query)
        assert full.selected == fast.selected
        assert full.ranked == fast.ranked
        assert list(full.explanations) == list(fast.explanations)
        assert full.digest == fast.digest
        assert full.evidence() == fast.evidence()
        assert len(fast.selected) <= query.limit
        if query.max_tokens is not None:
            assert fast.tokens <= query.max_tokens
        order = [(-(e.scores or {})["total"], e.memory_id) for e in fast.ranked]
        assert order == sorted(order)
