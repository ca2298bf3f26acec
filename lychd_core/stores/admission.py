"""Whether a new record revision may be stored: the rule every memory store backend applies.

A revision must stay above any tombstone of its id, follow the newest stored (or earlier
in the same batch) revision under :func:`check_successor`, and an identical revision
already stored is a no-op (adding is idempotent).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from lychd_core.digests import sha256_digest
from lychd_core.errors import (
    CorruptStoreError,
    ForgottenMemoryError,
    MemoryStoreError,
    RevisionConflictError,
    TombstoneMismatchError,
    UnknownMemoryError,
)
from lychd_core.memory.codec import stored_record
from lychd_core.memory.lifecycle import check_successor
from lychd_core.memory.records import MemoryRecord
from lychd_core.memory.tombstones import Tombstone, forget

HeldDigest = Callable[[str, int], str | None]
"""``(memory_id, revision) -> digest`` of a stored (or already admitted) revision, or None."""


def admit(
    record: MemoryRecord,
    stored: Mapping[str, tuple[Any, ...]],
    stones: Mapping[str, tuple[Any, ...]],
    newest: Mapping[str, MemoryRecord],
    held_digest: HeldDigest,
) -> bool:
    """True to store ``record``, False when the identical revision is already stored; raises otherwise.

    ``stored`` maps id -> newest stored ``(revision, digest, body)``; ``stones`` maps id ->
    highest tombstone ``(revision, prior_digest)``; ``newest`` holds revisions admitted
    earlier in the same batch.
    """
    memory_id = record.memory_id
    stone = stones.get(memory_id)
    if stone is not None and record.revision <= stone[0]:
        if record.revision == stone[0] and record.digest != stone[1]:
            raise TombstoneMismatchError(
                f"memory {memory_id!r} revision {record.revision} differs from the forgotten revision "
                f"(tombstone digest {stone[1]})"
            )
        raise ForgottenMemoryError(
            f"memory {memory_id!r} was forgotten at revision {stone[0]}; a new record needs revision "
            f"{stone[0] + 1} or later"
        )
    previous = newest.get(memory_id)
    if previous is None and memory_id in stored:
        _, digest, body = stored[memory_id]
        previous = stored_record(body, digest)
    if previous is None:
        return True
    if record.revision <= previous.revision:
        held = held_digest(memory_id, record.revision)
        if held == record.digest:
            return False  # the identical revision is already stored: adding is idempotent
        if held is not None:
            raise RevisionConflictError(
                f"memory {memory_id!r} revision {record.revision} is already stored with different content"
            )
    check_successor(previous, record)
    return True


def admit_tombstone(stone: Tombstone, held: tuple[str, int, str] | None, same_digest: str | None) -> bool:
    """True to store ``stone``, False when the identical tombstone is already stored; raises otherwise.

    ``held`` is the stored tombstone of the same id and revision as ``(prior_digest,
    deleted_at, reason)``; ``same_digest`` the digest of the stored revision it forgets.
    """
    if held is not None:
        if held == (stone.prior_digest, stone.deleted_at, stone.reason):
            return False
        raise RevisionConflictError(
            f"a different tombstone for memory {stone.memory_id!r} revision {stone.revision} is stored"
        )
    if same_digest is not None and same_digest != stone.prior_digest:
        raise TombstoneMismatchError(
            f"tombstone of memory {stone.memory_id!r} revision {stone.revision} names {stone.prior_digest}, "
            f"but the stored revision has digest {same_digest}"
        )
    return True


def next_revision(
    memory_id: str, newest: tuple[Any, ...] | None, change: Callable[[MemoryRecord], MemoryRecord], where: str
) -> MemoryRecord:
    """The checked successor ``change`` makes of the newest stored ``(revision, digest, body)`` row."""
    if newest is None:
        raise UnknownMemoryError(f"no memory {memory_id!r} in {where}")
    previous = stored_record(newest[2], newest[1])
    new = change(previous)
    if not isinstance(new, MemoryRecord) or new.memory_id != memory_id:
        raise MemoryStoreError(f"a transition of {memory_id!r} must return a revision of the same memory")
    check_successor(previous, new)
    return new


def tombstone_for(
    memory_id: str, newest: tuple[Any, ...] | None, forgotten: bool, reason: str, observation: int, where: str
) -> Tombstone:
    """The tombstone forgetting the newest stored row; ``forgotten`` says a tombstone of the id is stored."""
    if newest is None:
        if forgotten:
            raise ForgottenMemoryError(f"memory {memory_id!r} is already forgotten")
        raise UnknownMemoryError(f"no memory {memory_id!r} in {where}")
    return forget(stored_record(newest[2], newest[1]), reason, observation)


def check_digests(rows: Iterable[tuple[str, int, str, str]]) -> int:
    """How many ``(memory_id, revision, digest, body)`` rows there are; raises on the first wrong digest."""
    count = 0
    for memory_id, revision, digest, body in rows:
        if sha256_digest(body.encode("utf-8")) != digest:
            raise CorruptStoreError(f"memory {memory_id!r} revision {revision}: stored digest does not match")
        count += 1
    return count
