"""Lifecycle operations. Each returns a new checked revision; the input is unchanged.

Every operation takes the caller's logical ``observation``, which must be strictly
after the record's ``observed``; the revision advances by one. Expired and superseded
are terminal. Forgetting is not a lifecycle state: see ``tombstones.forget``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lychd_core.errors import (
    InvalidTransitionError,
    ReleaseWithoutReviewError,
    RevisionRegressionError,
    StaleObservationError,
    TerminalStateError,
)
from lychd_core.memory.checks import check_bp, check_id, check_int, check_observation
from lychd_core.memory.records import Feedback, LifecycleState, MemoryRecord

_LIVE = (LifecycleState.ACTIVE, LifecycleState.QUARANTINED)


def _advance(record: MemoryRecord, operation: str, observation: int, **changes: Any) -> MemoryRecord:
    check_observation(f"{operation} observation", observation)
    if record.state.is_terminal:
        raise TerminalStateError(
            f"cannot {operation} memory {record.memory_id!r}: revision {record.revision} is {record.state.value}, "
            "a terminal state; derive a new memory instead"
        )
    if observation <= record.observed:
        raise StaleObservationError(
            f"cannot {operation} memory {record.memory_id!r} at observation {observation}: revision "
            f"{record.revision} was observed at {record.observed}; observations must strictly advance"
        )
    return dataclasses.replace(record, revision=record.revision + 1, observed=observation, **changes)


def review(record: MemoryRecord, observation: int, *, confidence: int | None = None) -> MemoryRecord:
    """Record a review at ``observation``, optionally with a re-assessed confidence."""
    changes: dict[str, Any] = {"reviewed": observation}
    if confidence is not None:
        changes["confidence"] = check_bp("confidence", confidence)
    return _advance(record, "review", observation, **changes)


def quarantine(record: MemoryRecord, observation: int) -> MemoryRecord:
    """Withhold the memory from retrieval until a later review and release."""
    if record.state is LifecycleState.QUARANTINED:
        raise InvalidTransitionError(
            f"memory {record.memory_id!r} is already quarantined (since {record.quarantined_at})"
        )
    return _advance(record, "quarantine", observation, state=LifecycleState.QUARANTINED, quarantined_at=observation)


def release(record: MemoryRecord, observation: int) -> MemoryRecord:
    """Return a quarantined memory to active; requires a review after the quarantine began."""
    if record.state is not LifecycleState.QUARANTINED and not record.state.is_terminal:
        raise InvalidTransitionError(f"cannot release memory {record.memory_id!r}: it is {record.state.value}")
    if record.state is LifecycleState.QUARANTINED:
        assert record.quarantined_at is not None
        if record.reviewed is None or record.reviewed <= record.quarantined_at:
            raise ReleaseWithoutReviewError(
                f"cannot release memory {record.memory_id!r}: quarantined at {record.quarantined_at}, last reviewed "
                f"at {record.reviewed}; review it after the quarantine, then release"
            )
    return _advance(record, "release", observation, state=LifecycleState.ACTIVE, quarantined_at=None)


def expire(record: MemoryRecord, observation: int) -> MemoryRecord:
    """Mark the memory expired (terminal)."""
    return _advance(record, "expire", observation, state=LifecycleState.EXPIRED, quarantined_at=None)


def supersede(record: MemoryRecord, successor_id: str, observation: int) -> MemoryRecord:
    """Mark the memory superseded by ``successor_id`` (terminal)."""
    check_id("successor_id", successor_id)
    return _advance(
        record,
        "supersede",
        observation,
        state=LifecycleState.SUPERSEDED,
        superseded_by=successor_id,
        quarantined_at=None,
    )


def add_feedback(record: MemoryRecord, observation: int, *, positive: int = 0, negative: int = 0) -> MemoryRecord:
    """Add feedback counts (each 0.. and not both zero)."""
    check_int("positive feedback", positive, 0, 1_000_000_000)
    check_int("negative feedback", negative, 0, 1_000_000_000)
    if positive == negative == 0:
        raise InvalidTransitionError(f"feedback for memory {record.memory_id!r} must add at least one count")
    feedback = Feedback(record.feedback.positive + positive, record.feedback.negative + negative)
    return _advance(record, "record feedback on", observation, feedback=feedback)


def check_successor(previous: MemoryRecord, new: MemoryRecord) -> None:
    """Check that ``new`` may follow ``previous`` as the next stored revision of one memory.

    The store applies this to every write, so a hand-built revision cannot skip the
    rules the lifecycle operations enforce.
    """
    name = previous.memory_id
    if new.revision <= previous.revision:
        raise RevisionRegressionError(
            f"memory {name!r} revision {new.revision} does not advance past the stored revision "
            f"{previous.revision}; write revision {previous.revision + 1} or later"
        )
    if new.observed <= previous.observed:
        raise StaleObservationError(
            f"memory {name!r} revision {new.revision} observed at {new.observed}, not after revision "
            f"{previous.revision} at {previous.observed}"
        )
    if new.created != previous.created:
        raise StaleObservationError(
            f"memory {name!r} revision {new.revision} changes creation from {previous.created} to {new.created}; "
            "creation is fixed for a memory id"
        )
    if previous.state.is_terminal:
        raise TerminalStateError(
            f"memory {name!r} is {previous.state.value} at revision {previous.revision}, a terminal state; "
            "it takes no further revisions"
        )
    if previous.state is LifecycleState.QUARANTINED and new.state is LifecycleState.ACTIVE:
        assert previous.quarantined_at is not None
        if new.reviewed is None or new.reviewed <= previous.quarantined_at:
            raise ReleaseWithoutReviewError(
                f"memory {name!r} leaves quarantine (since {previous.quarantined_at}) without a later review"
            )
