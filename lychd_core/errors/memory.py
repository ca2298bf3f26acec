"""Specific memory errors, each a subclass of the core's two memory families.

``MemoryRecordError`` covers bad records, queries and lifecycle transitions (a
``ValueError``); ``MemoryStoreError`` covers the durable store (corrupt, foreign,
locked, newer schema).
"""

from __future__ import annotations

from typing import Literal

from lychd_core.errors.base import LychdError, MemoryRecordError, MemoryStoreError

# --- records --------------------------------------------------------------------


class ScoreOutOfRangeError(MemoryRecordError):
    """An integer score, count or bound lies outside its documented range."""


class UnknownClaimTypeError(MemoryRecordError):
    """A claim type outside the core-owned vocabulary."""


class EmptyScopeError(MemoryRecordError):
    """A record names no scope field at all."""


class MissingSourceEventError(MemoryRecordError):
    """A record names no source event."""


class NonCanonicalError(MemoryRecordError):
    """A collection is not in canonical form (sorted, unique, normalized names)."""


class EvidenceConflictError(MemoryRecordError):
    """One evidence item is listed as both supporting and contradicting."""


class StaleObservationError(MemoryRecordError):
    """An observation lies before one it must follow (review before creation, non-advancing revision)."""


class InvalidExpiryError(MemoryRecordError):
    """An expiry observation at or before the creation observation."""


class InvalidRevisionError(MemoryRecordError):
    """A revision that is not a positive integer."""


class RevisionRegressionError(MemoryRecordError):
    """A new revision at or below the latest known revision of the same memory."""


class RevisionConflictError(MemoryRecordError):
    """Two different records (or tombstones) claim the same memory id and revision."""


class InvalidTransitionError(MemoryRecordError):
    """A lifecycle operation that does not apply in the record's current state."""


class TerminalStateError(InvalidTransitionError):
    """A transition out of a terminal state (expired or superseded)."""


class ReleaseWithoutReviewError(InvalidTransitionError):
    """Quarantine release without a review after the quarantine began."""


class TombstoneMismatchError(MemoryRecordError):
    """A tombstone's prior digest differs from the record at the same revision."""


class ForgottenMemoryError(MemoryRecordError):
    """A record at or below the revision of a tombstone for its id: it stays forgotten."""


class UnknownMemoryError(MemoryRecordError, LookupError):
    """No record with this memory id."""


class InvalidQueryError(MemoryRecordError):
    """A memory query or its ranking weights are malformed."""


# --- store ----------------------------------------------------------------------


class StoreMissingError(MemoryStoreError, FileNotFoundError):
    """No memory store exists at the path and creation was not requested."""


class CorruptStoreError(MemoryStoreError):
    """The file is not a readable SQLite database, or its pages are damaged."""


class ForeignDatabaseError(MemoryStoreError):
    """An SQLite database that belongs to something else; never modified."""


class StoreVersionError(MemoryStoreError):
    """The store's schema is newer than this lychd-core understands."""


class StoreLockedError(MemoryStoreError):
    """Another connection held the write lock past the busy timeout; nothing was written."""


class StoreClosedError(MemoryStoreError):
    """The store was used after ``close()``."""


class StoreConnectionError(MemoryStoreError, ConnectionError):
    """A database server store could not be reached, or the connection was lost mid-transaction.

    Nothing unacknowledged was committed by the failed call's transaction (or, when the
    connection dropped during COMMIT, the outcome is unknown: adds are idempotent, so retry).
    """


class StoreCopyError(MemoryStoreError):
    """A copied store does not verify: its index digest differs from the source's."""


RefusalReason = Literal["missing", "changed", "superseded", "inactive", "forgotten", "over-bound"]


class RecallRefusedError(LychdError):
    """A recall receipt no longer resolves exactly; the call is refused, nothing is searched again."""

    def __init__(self, message: str, *, memory_id: str, reason: RefusalReason) -> None:
        super().__init__(message)
        self.memory_id = memory_id
        self.reason = reason
