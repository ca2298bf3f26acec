"""Forgetting and replay.

``forget`` turns a record into a tombstone that keeps no content: only the memory id,
the prior revision and digest, the deletion observation and a reason. ``replay`` folds
records and tombstones into the canonical active view: the newest revision of each
memory id, unless a tombstone at or above that revision dominates it. A record newer
than the tombstone survives. Replay is independent of input order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lychd_core.digests import StreamedArray, check_digest, json_digest, streamed_json_digest
from lychd_core.errors import (
    MemoryRecordError,
    NonCanonicalError,
    RevisionConflictError,
    StaleObservationError,
    TombstoneMismatchError,
)
from lychd_core.memory.checks import MAX_REASON_CHARS, check_id, check_observation, check_revision, check_text
from lychd_core.memory.records import MemoryRecord


def canonical_digest(value: object) -> object:
    """``sha256:`` + lowercase hex from a digest given in upper case or as bare hex; other
    values pass unchanged for ``check_digest`` to refuse."""
    if isinstance(value, str):
        hexpart = value[len("sha256:") :] if value[:7].lower() == "sha256:" else value
        if len(hexpart) == 64 and all(c in "0123456789abcdefABCDEF" for c in hexpart):
            return "sha256:" + hexpart.lower()
    return value


@dataclass(frozen=True, slots=True)
class Tombstone:
    """Proof that a memory was forgotten, holding no content of it.

    ``prior_digest`` may be given as bare hex or in upper case; it is stored canonical
    (``sha256:`` + lowercase hex). :meth:`canonical_only` refuses that leniency for
    stored data."""

    memory_id: str
    revision: int
    prior_digest: str
    deleted_at: int
    reason: str

    def __post_init__(self) -> None:
        check_id("tombstone memory_id", self.memory_id)
        check_revision("tombstone revision", self.revision)
        object.__setattr__(self, "prior_digest", canonical_digest(self.prior_digest))
        try:
            check_digest(self.prior_digest)
        except ValueError as exc:
            raise MemoryRecordError(f"tombstone of {self.memory_id!r}: {exc}") from None
        check_observation("tombstone deleted_at", self.deleted_at)
        check_text("tombstone reason", self.reason, MAX_REASON_CHARS)

    def dominates(self, record: MemoryRecord) -> bool:
        return record.memory_id == self.memory_id and record.revision <= self.revision

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.memory_id,
            "revision": self.revision,
            "prior_digest": self.prior_digest,
            "deleted_at": self.deleted_at,
            "reason": self.reason,
        }

    @property
    def digest(self) -> str:
        return json_digest(self.to_json())

    @classmethod
    def canonical_only(
        cls, memory_id: str, revision: int, prior_digest: str, deleted_at: int, reason: str
    ) -> Tombstone:
        """A tombstone from stored data, whose digest must already be canonical."""
        try:
            check_digest(prior_digest)
        except ValueError as exc:
            raise NonCanonicalError(f"stored tombstone of {memory_id!r}: {exc}") from None
        return cls(memory_id, revision, prior_digest, deleted_at, reason)

    @classmethod
    def from_json(cls, data: Any, *, canonical_only: bool = False) -> Tombstone:
        keys = {"id", "revision", "prior_digest", "deleted_at", "reason"}
        if not isinstance(data, Mapping) or set(data) != keys:
            raise MemoryRecordError(f"a tombstone is an object with exactly the keys {sorted(keys)}, got {data!r}")
        make = cls.canonical_only if canonical_only else cls
        return make(data["id"], data["revision"], data["prior_digest"], data["deleted_at"], data["reason"])


def forget(record: MemoryRecord, reason: str, observation: int) -> Tombstone:
    """The tombstone that forgets ``record`` (and every earlier revision of its id)."""
    check_observation("forget observation", observation)
    if observation <= record.observed:
        raise StaleObservationError(
            f"cannot forget memory {record.memory_id!r} at observation {observation}: revision {record.revision} "
            f"was observed at {record.observed}; the deletion must come after it"
        )
    return Tombstone(record.memory_id, record.revision, record.digest, observation, reason)


@dataclass(frozen=True, slots=True)
class ActiveView:
    """The canonical active view: what retrieval and the index are defined over."""

    records: tuple[MemoryRecord, ...]
    """Newest surviving revision per memory id, in id order, in any lifecycle state (not only active)."""
    tombstones: tuple[Tombstone, ...]
    """The dominating (highest) tombstone per memory id, in id order."""
    older: tuple[MemoryRecord, ...]
    """Input records replaced by a newer revision of the same id (not dominated by a tombstone)."""
    forgotten: tuple[MemoryRecord, ...]
    """Input records dominated by a tombstone."""

    @property
    def digest(self) -> str:
        return view_digest(self.records)


def view_digest(records: Iterable[MemoryRecord]) -> str:
    """Digest of an active set: the canonical JSON array of ``[id, revision, digest]`` per
    record, in the given (id) order.

    The triples are built here from checked records and hashed batch by batch, so neither
    canonical JSON's check walk (its bound of a million containers is for values from
    outside) nor one list or bytes value of the whole store is involved: a store of any
    size has a view digest, the same bytes as ``built_json_digest`` of the whole list."""
    return streamed_json_digest(StreamedArray([r.memory_id, r.revision, r.digest] for r in records))


def canonical_tombstones(tombstones: Iterable[Tombstone]) -> dict[str, Tombstone]:
    """The highest tombstone per id; two different tombstones at one revision conflict."""
    best: dict[str, Tombstone] = {}
    for stone in tombstones:
        held = best.get(stone.memory_id)
        if held is None or stone.revision > held.revision:
            best[stone.memory_id] = stone
        elif stone.revision == held.revision and stone != held:
            raise RevisionConflictError(
                f"two different tombstones forget memory {stone.memory_id!r} at revision {stone.revision}"
            )
    return best


def replay(records: Iterable[MemoryRecord], tombstones: Iterable[Tombstone] = ()) -> ActiveView:
    """Fold records and tombstones into the canonical active view (order-independent)."""
    stones = canonical_tombstones(tombstones)
    by_identity: dict[tuple[str, int], MemoryRecord] = {}
    for record in records:
        key = (record.memory_id, record.revision)
        held = by_identity.get(key)
        if held is None:
            by_identity[key] = record
        elif held.digest != record.digest:
            raise RevisionConflictError(
                f"memory {record.memory_id!r} revision {record.revision} appears twice with different content "
                f"({held.digest} and {record.digest})"
            )
    active: dict[str, MemoryRecord] = {}
    older: list[MemoryRecord] = []
    forgotten: list[MemoryRecord] = []
    for key in sorted(by_identity):
        record = by_identity[key]
        stone = stones.get(record.memory_id)
        if stone is not None and stone.revision == record.revision and stone.prior_digest != record.digest:
            raise TombstoneMismatchError(
                f"tombstone of memory {record.memory_id!r} at revision {record.revision} names digest "
                f"{stone.prior_digest}, but the record at that revision has digest {record.digest}"
            )
        if stone is not None and stone.dominates(record):
            forgotten.append(record)
            continue
        previous = active.get(record.memory_id)
        if previous is not None:
            older.append(previous)
        active[record.memory_id] = record  # keys are sorted, so the last revision wins
    return ActiveView(
        records=tuple(active.values()),  # first insertion per id happened in id order
        tombstones=tuple(stones[memory_id] for memory_id in sorted(stones)),
        older=tuple(older),
        forgotten=tuple(forgotten),
    )
