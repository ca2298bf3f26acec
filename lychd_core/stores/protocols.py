"""The store contract: what every memory store and projection cache backend provides.

SQLite (embedded, the default) and PostgreSQL (shared by a fleet) implement these; the
store contract kit (:mod:`lychd_core.testing.store_contract`) runs the same checks over
each, and the same inputs give the same plans, explanations and index digests on both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from lychd_core.families import Projected
    from lychd_core.memory.index import MemoryIndex
    from lychd_core.memory.plan import RetrievalPlan
    from lychd_core.memory.query import MemoryQuery
    from lychd_core.memory.records import MemoryRecord
    from lychd_core.memory.tombstones import ActiveView, Tombstone
    from lychd_core.projection.cache_entries import CacheKey
    from lychd_core.projection.fingerprints import FileRecord
    from lychd_core.projection.media import MediaDecision


@runtime_checkable
class MemoryStore(Protocol):
    """Durable, append-only record revisions and tombstones with a cached, verified index.

    Opening refuses a foreign, corrupt or newer store without writing to it, and never
    creates a store unless asked to. Every write is one transaction: committed whole or
    not at all; lifecycle transitions are compare-and-set against the newest revision.
    """

    @property
    def schema_version(self) -> int: ...

    def close(self) -> None: ...

    def __enter__(self) -> MemoryStore: ...

    def __exit__(self, *exc: object) -> None: ...

    def add(self, record: MemoryRecord) -> bool: ...

    def add_many(self, records: Iterable[MemoryRecord]) -> int: ...

    def transition(self, memory_id: str, change: Callable[[MemoryRecord], MemoryRecord]) -> MemoryRecord: ...

    def forget(self, memory_id: str, reason: str, observation: int) -> Tombstone: ...

    def add_tombstone(self, stone: Tombstone) -> bool: ...

    def latest(self, memory_id: str) -> MemoryRecord | None: ...

    def records(self) -> tuple[MemoryRecord, ...]: ...

    def tombstones(self) -> tuple[Tombstone, ...]: ...

    def view(self) -> ActiveView: ...

    def last_observation(self) -> int: ...

    def rebuild_index(self) -> MemoryIndex: ...

    def index(self) -> MemoryIndex: ...

    def query(self, query: MemoryQuery) -> RetrievalPlan: ...

    def stats(self) -> dict[str, Any]: ...

    def check(self) -> dict[str, Any]: ...


@runtime_checkable
class ProjectionCacheStore(Protocol):
    """Successful projections keyed by what they are a pure function of, served only after a MAC check."""

    def get(self, key: CacheKey) -> tuple[Projected, bytes] | None: ...

    def put(self, key: CacheKey, outcome: Projected, facts: bytes) -> None: ...

    def put_many(self, entries: list[tuple[CacheKey, Projected, bytes]]) -> None: ...

    def media(
        self, source_digest: str, file_name: str, pinned: str | None, declared: str = ""
    ) -> MediaDecision | None: ...

    def remember_media(
        self, decisions: list[tuple[str, str, str | None, MediaDecision]], declared: str = ""
    ) -> None: ...

    def get_many(self, keys: Sequence[CacheKey]) -> dict[CacheKey, tuple[Projected, bytes]]:
        """Verified entries for many keys at once (misses left out): one round trip per batch.

        The outcomes' ``facts`` are None; their facts are the canonical bytes beside each one.
        """
        ...

    def media_many(
        self, queries: Sequence[tuple[str, str, str | None]], declared: str = ""
    ) -> dict[tuple[str, str, str | None], MediaDecision]:
        """Remembered decisions for many ``(source digest, file name, pin)`` queries (misses left out)."""
        ...

    def files(self, scope: str, paths: Sequence[str]) -> dict[str, FileRecord]:
        """Verified file records (stat fingerprint -> digest and media decision) of ``paths`` in ``scope``."""
        ...

    def remember_files(self, scope: str, records: Sequence[FileRecord]) -> None: ...

    def count(self) -> int: ...

    def close(self) -> None: ...
