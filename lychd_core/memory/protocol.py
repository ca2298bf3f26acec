"""The memory store contract: what every memory store backend provides.

The SQLite (embedded, the default) and PostgreSQL (shared by a fleet) backends in
:mod:`lychd_core.stores` implement it; the store contract kit
(:mod:`lychd_core.testing.store_contract`) runs the same checks over each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from lychd_core.memory.index import MemoryIndex
    from lychd_core.memory.plan import RetrievalPlan
    from lychd_core.memory.query import MemoryQuery
    from lychd_core.memory.records import MemoryRecord
    from lychd_core.memory.tombstones import ActiveView, Tombstone


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
