"""The projection cache contract: what every projection cache backend provides.

The SQLite and PostgreSQL backends in :mod:`lychd_core.stores` implement it; the store
contract kit (:mod:`lychd_core.testing.store_contract`) runs the same checks over each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from lychd_core.families import Projected
    from lychd_core.projection.cache_entries import CacheKey
    from lychd_core.projection.cache_prune import PruneReport
    from lychd_core.projection.fingerprints import FileRecord
    from lychd_core.projection.media import MediaDecision


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

    def token_counts(self, counter: str, digests: Sequence[str]) -> dict[str, int]:
        """Verified token counts by ``counter`` (its identity: pin, tokenizer, options) of the texts
        whose digests are ``digests`` (misses and rows failing their MAC left out); see ``cache_counts``."""
        ...

    def remember_token_counts(self, counter: str, counts: Sequence[tuple[str, int]]) -> None:
        """Store ``(text digest, count)`` pairs by ``counter``; a read-only cache stores nothing."""
        ...

    def count_record(self, counter: str, set_key: str) -> list[int] | None:
        """Every count by ``counter`` of the texts whose ordered digests make ``set_key``
        (``cache_counts.set_digest``), in that order, checked under one MAC; None when missing or failing it."""
        ...

    def remember_count_record(self, counter: str, set_key: str, counts: Sequence[int]) -> None:
        """Store the counts of the texts whose ordered digests make ``set_key``; a read-only cache stores nothing."""
        ...

    def prune(self, cutoff_ns: int, *, dry_run: bool = False) -> PruneReport:
        """Remove every row written before ``cutoff_ns`` (``cache_prune``), in one transaction; with
        ``dry_run`` only count them. A read-only cache raises ``ReadOnlyCacheError`` and deletes nothing."""
        ...

    def count(self) -> int: ...

    def close(self) -> None: ...
