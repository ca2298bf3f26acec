"""Lifecycle operations, successor checks, forgetting and replay dominance."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.errors import (
    InvalidTransitionError,
    ReleaseWithoutReviewError,
    RevisionConflictError,
    RevisionRegressionError,
    ScoreOutOfRangeError,
    StaleObservationError,
    TerminalStateError,
    TombstoneMismatchError,
)
from lychd_core.memory import (
    ClaimType,
    LifecycleState,
    MemoryRecord,
    Tombstone,
    add_feedback,
    check_successor,
    expire,
    forget,
    quarantine,
    release,
    replay,
    review,
    supersede,
)
from lychd_core.vocabulary import Provenance
from tests.support.memories import memory_record


def make(**changes: Any) -> MemoryRecord:
    fields: dict[str, Any] = {
        "claim_type": ClaimType.DECISION,
        "claim": "We chose SQLite as the embedded store.",
        "source_provenance": Provenance.REVIEW,
        "confidence": 7000,
        "token_estimate": 12,
        "created": 10,
        "observed": 10,
    }
    fields.update(changes)
    return memory_record(**fields)


def test_each_operation_returns_a_new_checked_revision() -> None:
    base = make()
    reviewed = review(base, 11, confidence=9000)
    assert (reviewed.revision, reviewed.observed, reviewed.reviewed, reviewed.confidence) == (2, 11, 11, 9000)
    assert base.revision == 1 and base.reviewed is None  # the input is unchanged
    held = quarantine(reviewed, 12)
    assert (held.state, held.quarantined_at, held.revision) == (LifecycleState.QUARANTINED, 12, 3)
    cleared = release(review(held, 13), 14)
    assert (cleared.state, cleared.quarantined_at, cleared.revision) == (LifecycleState.ACTIVE, None, 5)
    liked = add_feedback(cleared, 15, positive=2, negative=1)
    assert (liked.feedback.positive, liked.feedback.negative) == (2, 1)
    gone = expire(liked, 16)
    assert gone.state is LifecycleState.EXPIRED
    replaced = supersede(liked, "m2", 16)
    assert (replaced.state, replaced.superseded_by) == (LifecycleState.SUPERSEDED, "m2")
    for step in (reviewed, held, cleared, liked, gone):
        assert step.digest != base.digest


@pytest.mark.parametrize(
    "operation",
    [
        lambda r: review(r, 10),
        lambda r: quarantine(r, 9),
        lambda r: expire(r, 10),
        lambda r: supersede(r, "m2", 3),
        lambda r: add_feedback(r, 10, positive=1),
    ],
)
def test_observations_must_strictly_advance(operation: Any) -> None:
    with pytest.raises(StaleObservationError):
        operation(make())


@pytest.mark.parametrize("terminal", [lambda r: expire(r, 11), lambda r: supersede(r, "m2", 11)])
@pytest.mark.parametrize(
    "operation",
    [
        lambda r: review(r, 20),
        lambda r: quarantine(r, 20),
        lambda r: release(r, 20),
        lambda r: expire(r, 20),
        lambda r: supersede(r, "m3", 20),
        lambda r: add_feedback(r, 20, negative=1),
    ],
)
def test_no_transition_leaves_a_terminal_state(terminal: Any, operation: Any) -> None:
    with pytest.raises(TerminalStateError):
        operation(terminal(make()))


def test_release_requires_a_review_after_the_quarantine() -> None:
    reviewed_before = quarantine(review(make(), 11), 12)
    with pytest.raises(ReleaseWithoutReviewError):
        release(reviewed_before, 13)
    with pytest.raises(ReleaseWithoutReviewError):
        release(quarantine(make(), 11), 12)
    assert release(review(reviewed_before, 13), 14).state is LifecycleState.ACTIVE


def test_invalid_transitions_are_typed() -> None:
    with pytest.raises(InvalidTransitionError):
        release(make(), 11)
    with pytest.raises(InvalidTransitionError):
        quarantine(quarantine(make(), 11), 12)
    with pytest.raises(InvalidTransitionError):
        supersede(make(), "m1", 11)
    with pytest.raises(InvalidTransitionError):
        add_feedback(make(), 11)
    with pytest.raises(ScoreOutOfRangeError):
        review(make(), 11, confidence=20_000)


def test_successor_checks_hand_built_revisions() -> None:
    base = make()
    with pytest.raises(RevisionRegressionError):
        check_successor(review(base, 11), base)
    with pytest.raises(StaleObservationError):
        check_successor(base, make(revision=2, observed=10))
    with pytest.raises(StaleObservationError):
        check_successor(base, make(revision=2, created=11, observed=11))
    with pytest.raises(TerminalStateError):
        check_successor(expire(base, 11), make(revision=3, observed=12))
    held = quarantine(base, 11)
    with pytest.raises(ReleaseWithoutReviewError):
        check_successor(held, make(revision=3, observed=12))
    check_successor(held, make(revision=3, observed=12, reviewed=12))
    check_successor(base, make(revision=5, observed=30))  # gaps are allowed; order is what matters


def test_forget_keeps_no_content() -> None:
    record = review(make(claim="secret: the launch code is 1234"), 11)
    stone = forget(record, "user asked to forget", 12)
    assert stone == Tombstone("m1", 2, record.digest, 12, "user asked to forget")
    assert set(stone.to_json()) == {"id", "revision", "prior_digest", "deleted_at", "reason"}
    assert "1234" not in repr(stone.to_json())
    with pytest.raises(StaleObservationError):
        forget(record, "too early", 11)
    with pytest.raises(Exception, match="digest"):
        Tombstone("m1", 1, "not-a-digest", 3, "reason")


def test_tombstone_dominates_at_or_below_its_revision_and_newer_records_survive() -> None:
    r1 = make()
    r2 = review(r1, 11)
    r3 = review(r2, 12)
    stone = forget(r2, "wrong", 13)
    view = replay([r3, r1, r2], [stone])
    assert view.records == (r3,)
    assert set(view.forgotten) == {r1, r2}
    without_newer = replay([r1, r2], [stone])
    assert without_newer.records == () and without_newer.tombstones == (stone,)
    assert replay([r1], [stone]).forgotten == (r1,)


def test_replay_is_order_independent_and_keeps_the_newest_revision() -> None:
    r1 = make()
    r2 = review(r1, 11)
    other = make(memory_id="a0")
    first = replay([r1, r2, other])
    second = replay([other, r2, r1])
    assert first == second
    assert first.records == (other, r2) and first.older == (r1,)


def test_replay_refuses_conflicts_and_mismatched_tombstones() -> None:
    r1 = make()
    with pytest.raises(RevisionConflictError):
        replay([r1, make(claim="a different claim")])
    stone = Tombstone("m1", 1, make(claim="other").digest, 20, "x")
    with pytest.raises(TombstoneMismatchError):
        replay([r1], [stone])
    with pytest.raises(RevisionConflictError):
        replay([], [forget(r1, "a", 20), forget(r1, "b", 20)])
