"""The embedded projection cache: successful projections in SQLite, never trusted on read.

Entries are authenticated with a keyed MAC (:mod:`lychd_core.projection.cache_entries`)
whose key lives in a 0600 file outside the database, so an entry edited in the file
reads as a miss and is re-projected. Only successful projections are stored.

The database uses WAL and a busy timeout, so concurrent processes can share it. A new
cache is built beside its path and linked into place, so nobody opens a half-made file.
An existing path that is not a lychd projection cache (an empty or non-SQLite file, a
directory, another application's database) is refused and left untouched. A damaged
file that does carry the cache's header is moved aside to ``<name>.corrupt-<pid>-<ns>``
and recreated, since a cache holds nothing that cannot be recomputed.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lychd_core.errors import ProjectionCacheError, ReadOnlyCacheError
from lychd_core.families import Projected
from lychd_core.projection.cache_counts import (
    COUNT_RECORDS_TABLE,
    KEEP_COUNT_RECORDS,
    TOKEN_COUNTS_TABLE,
    count_row,
    decode_counts,
    decode_record,
    encode_record,
)
from lychd_core.projection.cache_entries import (
    CacheKey,
    decode_entries,
    decode_entry,
    decode_media,
    encode_entry,
    media_decision,
    media_detector,
    media_row,
)
from lychd_core.projection.cache_prune import PRUNED_TABLES, PruneReport, TableCount
from lychd_core.projection.fingerprints import FileRecord, decode_file_records
from lychd_core.projection.media import MediaDecision
from lychd_core.state.keys import load_or_create_key
from lychd_core.state.sqlite_tx import immediate, untranslated
from lychd_core.stores.sqlite.cache_file import (
    APPLICATION_ID,
    RUN_RECORDS_TABLE,
    CacheFile,
)

if TYPE_CHECKING:
    from lychd_core.projection.run_record import RecordReader

__all__ = ["APPLICATION_ID", "CacheKey", "ProjectionCache"]

T = TypeVar("T")

BATCH = 400  # keys per batched SELECT (well under SQLite's bound on parameters)
DEFAULT_KEY_NAME = "cache.key"
KEEP_RECORDS = 8  # run records kept (the newest): one per recent (workspace, configuration, references)


class ProjectionCache(CacheFile):
    """One SQLite file; safe to share between processes; opened lazily, per process.

    ``key_path`` names the MAC key file (default ``cache.key`` beside the database);
    ``key`` passes the key itself instead.
    """

    def __init__(self, path: Path | str, *, key_path: Path | str | None = None, key: bytes | None = None) -> None:
        self.path = Path(path)
        self.key_path = Path(key_path) if key_path is not None else self.path.with_name(DEFAULT_KEY_NAME)
        if self.key_path.resolve() == self.path.resolve():
            raise ProjectionCacheError(f"the projection cache key {self.key_path} cannot be the cache file itself")
        self._key = key
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid = 0
        self._detector_ids: dict[str, str] = {}
        self.moved_aside: list[Path] = []
        self.read_only = False
        """True once opened from a file this process cannot write: hits are served, nothing is stored."""

    def __repr__(self) -> str:
        return f"ProjectionCache({str(self.path)!r})"

    @property
    def secret(self) -> bytes:
        if self._key is None:
            self._key = load_or_create_key(self.key_path)
        return self._key

    # --- entries -----------------------------------------------------------------

    def get(self, key: CacheKey) -> tuple[Projected, bytes] | None:
        """The cached outcome and canonical facts for ``key``, or None (missing, forged or corrupt)."""
        row = self._fetch(
            "SELECT payload, facts, entry_digest FROM projections WHERE source_digest = ? AND profile = ? "
            "AND revision = ? AND options_digest = ? AND parser_version = ?",
            key.as_list(),
        )
        return None if row is None else decode_entry(self.secret, key, row[0], row[1], row[2])

    def get_many(self, keys: Sequence[CacheKey]) -> dict[CacheKey, tuple[Projected, bytes]]:
        """Verified entries for ``keys`` (misses left out), in one SELECT per batch of source digests."""
        rows = self._fetch_in(
            "SELECT source_digest, profile, revision, options_digest, parser_version, payload, facts, entry_digest "
            "FROM projections WHERE source_digest IN ({})",
            [],
            sorted({key.source_digest for key in keys}),
        )
        return decode_entries(self.secret, keys, rows) if rows else {}  # no rows: the key is not needed

    def media_many(
        self, queries: Sequence[tuple[str, str, str | None]], declared: str = ""
    ) -> dict[tuple[str, str, str | None], MediaDecision]:
        """Remembered decisions for ``(source digest, file name, pin)`` queries (misses left out)."""
        detector = self._detector(declared)
        rows = self._fetch_in(
            "SELECT source_digest, file_name, pinned, decision, entry_digest FROM media_decisions "
            "WHERE detector = ? AND source_digest IN ({})",
            [detector],
            sorted({query[0] for query in queries}),
        )
        return decode_media(self.secret, detector, queries, rows) if rows else {}

    def files(self, scope: str, paths: Sequence[str]) -> dict[str, FileRecord]:
        """Verified file records of ``paths`` under ``scope`` (misses left out)."""
        rows = self._fetch_in(
            "SELECT path, record, entry_digest FROM file_records WHERE scope = ? AND path IN ({})",
            [scope],
            sorted(set(paths)),
        )
        return decode_file_records(self.secret, scope, rows) if rows else {}  # no rows: the key is not needed

    def remember_files(self, scope: str, records: Sequence[FileRecord]) -> None:
        """Store file records in one transaction (replacing older ones for the same paths)."""
        if not records or self._keeps_nothing():
            return
        now = time.time_ns()
        rows = [(scope, record.path, *record.encode(self.secret, scope), now) for record in records]
        self._write_rows("INSERT OR REPLACE INTO file_records VALUES (?, ?, ?, ?, ?)", rows)

    def token_counts(self, counter: str, digests: Sequence[str]) -> dict[str, int]:
        """Verified counts by ``counter`` of the texts ``digests`` (a cache older than counts has none)."""
        rows = self._fetch_in(
            "SELECT text_digest, count, entry_digest FROM token_counts WHERE counter = ? AND text_digest IN ({})",
            [counter],
            sorted(set(digests)),
        )
        return decode_counts(self.secret, counter, rows) if rows else {}

    def remember_token_counts(self, counter: str, counts: Sequence[tuple[str, int]]) -> None:
        """Store counts in one transaction (replacing a tampered row for the same text and counter)."""
        if not counts or self._keeps_nothing():
            return
        now = time.time_ns()
        rows = [(*count_row(self.secret, counter, digest, count), now) for digest, count in counts]
        self._write_rows("INSERT OR REPLACE INTO token_counts VALUES (?, ?, ?, ?, ?)", rows, prepare=TOKEN_COUNTS_TABLE)

    def count_record(self, counter: str, set_key: str) -> list[int] | None:
        """The verified counts by ``counter`` of the texts whose ordered digests make ``set_key``, or None."""
        row = self._fetch(
            "SELECT entry_digest, counts FROM count_records WHERE counter = ? AND set_digest = ?", [counter, set_key]
        )
        return None if row is None else decode_record(self.secret, counter, set_key, row[1], row[0])

    def remember_count_record(self, counter: str, set_key: str, counts: Sequence[int]) -> None:
        """Replace the record of ``counter`` for ``set_key``; only the newest ``KEEP_COUNT_RECORDS`` are kept."""
        if self._keeps_nothing():
            return
        payload, tag = encode_record(self.secret, counter, set_key, counts)
        row = (counter, set_key, time.time_ns(), tag, payload)
        self._write_rows("INSERT OR REPLACE INTO count_records VALUES (?, ?, ?, ?, ?)", [row], COUNT_RECORDS_TABLE)
        self._write_rows(
            "DELETE FROM count_records WHERE rowid NOT IN "
            "(SELECT rowid FROM count_records ORDER BY written DESC LIMIT ?)",
            [(KEEP_COUNT_RECORDS,)],
        )

    def read_run(self, run_key: str, consume: Callable[[RecordReader, object], T]) -> T | None:
        """``consume(reader, MAC)`` over the run record of ``run_key``, read in place; None when there is none.

        The record is read piece by piece through SQLite's blob handle: no copy of the whole
        record is made. An unreadable row (damaged file, a value that is not a blob) is None.
        """
        with self._lock:
            connection = self._connect()
            try:
                row = connection.execute(
                    "SELECT rowid, entry_digest FROM run_records WHERE run_key = ?", [run_key]
                ).fetchone()
                if row is None:
                    return None
                with connection.blobopen("run_records", "record", row[0], readonly=True) as blob:
                    return consume(blob, row[1])
            except sqlite3.DatabaseError:
                return None

    def remember_run(self, run_key: str, record: bytes, sign: Callable[[bytes], str]) -> None:
        """Replace the record for ``run_key`` (MAC'd by ``sign``); only the newest ``KEEP_RECORDS`` are kept."""
        if self._keeps_nothing():
            return
        rows = [(run_key, time.time_ns(), sign(self.secret), record)]
        sql = "INSERT OR REPLACE INTO run_records (run_key, written, entry_digest, record) VALUES (?, ?, ?, ?)"
        self._write_rows(sql, rows, prepare=RUN_RECORDS_TABLE)
        self._write_rows(
            "DELETE FROM run_records WHERE run_key NOT IN "
            "(SELECT run_key FROM run_records ORDER BY written DESC LIMIT ?)",
            [(KEEP_RECORDS,)],
        )

    def prune(self, cutoff_ns: int, *, dry_run: bool = False) -> PruneReport:
        """Remove every row written before ``cutoff_ns`` in one transaction (``cache_prune``); a missing
        file is not created (nothing to prune), a read-only one raises ``ReadOnlyCacheError``."""
        if not self.path.exists():
            return PruneReport(cutoff_ns, dry_run, {table: TableCount(0, 0) for table in PRUNED_TABLES})
        with self._lock:
            connection = self._connect()
            if self.read_only:
                raise ReadOnlyCacheError(
                    f"projection cache {self.path} is read-only for this user: prune removed nothing. "
                    "Run it as the user who writes the cache"
                )
            try:
                with immediate(connection, Path(), "prune", untranslated):
                    tables = {table: _prune_table(connection, table, cutoff_ns, dry_run) for table in PRUNED_TABLES}
            except sqlite3.Error as exc:
                raise ProjectionCacheError(
                    f"projection cache {self.path} cannot be pruned ({exc}); nothing was removed"
                ) from None
        return PruneReport(cutoff_ns, dry_run, tables)

    def _fetch_in(self, sql: str, fixed: list[Any], values: list[Any]) -> list[tuple[Any, ...]]:
        """Rows of ``sql`` whose ``IN ({})`` takes ``values`` in batches; unreadable is no rows (a miss)."""
        found: list[tuple[Any, ...]] = []
        with self._lock:
            connection = self._connect()
            try:
                for start in range(0, len(values), BATCH):
                    chunk = values[start : start + BATCH]
                    query = sql.format(", ".join("?" * len(chunk)))
                    found.extend(connection.execute(query, [*fixed, *chunk]).fetchall())
            except sqlite3.DatabaseError:
                return []
        return found

    def _fetch(self, sql: str, parameters: list[Any]) -> tuple[Any, ...] | None:
        with self._lock:
            connection = self._connect()
            try:
                row: tuple[Any, ...] | None = connection.execute(sql, parameters).fetchone()
            except sqlite3.DatabaseError:
                return None  # unreadable is a miss; the write that follows repairs or reports
        return row

    def media(self, source_digest: str, file_name: str, pinned: str | None, declared: str = "") -> MediaDecision | None:
        """A remembered decision for these bytes, name, pin and declared tables (verified like entries)."""
        parameters = [source_digest, file_name, pinned or "", self._detector(declared)]
        row = self._fetch(
            "SELECT decision, entry_digest FROM media_decisions WHERE source_digest = ? AND file_name = ? "
            "AND pinned = ? AND detector = ?",
            parameters,
        )
        return None if row is None else media_decision(self.secret, parameters, row[0], row[1])

    def remember_media(self, decisions: list[tuple[str, str, str | None, MediaDecision]], declared: str = "") -> None:
        """Store (source digest, file name, pin, decision) rows in one transaction."""
        if not decisions or self._keeps_nothing():
            return
        now = time.time_ns()
        rows = [
            (*media_row(self.secret, [digest, name, pinned or "", self._detector(declared)], decision), now)
            for digest, name, pinned, decision in decisions
        ]
        self._write_rows("INSERT OR REPLACE INTO media_decisions VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    def _detector(self, declared: str = "") -> str:
        if declared not in self._detector_ids:
            self._detector_ids[declared] = media_detector(declared)
        return self._detector_ids[declared]

    def put_many(self, entries: list[tuple[CacheKey, Projected, bytes]]) -> None:
        """Store outcomes (with their canonical facts) in one transaction, replacing bad entries."""
        if not entries or self._keeps_nothing():
            return
        now = time.time_ns()
        rows = [
            (*key.as_list(), *encode_entry(self.secret, key, outcome, facts), now) for key, outcome, facts in entries
        ]
        self._write_rows("INSERT OR REPLACE INTO projections VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def _keeps_nothing(self) -> bool:
        """True for a read-only cache (or none at all): new outcomes are simply not remembered."""
        with self._lock:
            self._connect()
            return self.read_only

    def _write_rows(self, sql: str, rows: list[tuple[Any, ...]], prepare: str = "") -> None:
        if not rows:
            return
        with self._lock:
            try:
                self._write(self._connect(), sql, rows, prepare)
            except sqlite3.OperationalError as exc:  # locked past the busy timeout, disk full, read-only
                raise ProjectionCacheError(f"projection cache {self.path} cannot be written: {exc}") from None
            except sqlite3.DatabaseError:  # the file is damaged: start a fresh one, once
                self._discard_connection()
                self._move_aside()
                try:
                    self._write(self._connect(), sql, rows, prepare)
                except sqlite3.Error as exc:
                    raise ProjectionCacheError(f"projection cache {self.path} cannot be written: {exc}") from None

    @staticmethod
    def _write(connection: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]], prepare: str = "") -> None:
        with immediate(connection, Path(), "write", untranslated):  # the callers map sqlite3 errors
            if prepare:
                connection.execute(prepare)
            connection.executemany(sql, rows)

    def put(self, key: CacheKey, outcome: Projected, facts: bytes) -> None:
        self.put_many([(key, outcome, facts)])

    def count(self) -> int:
        with self._lock:
            row = self._connect().execute("SELECT count(*) FROM projections").fetchone()
        return int(row[0])


def _prune_table(connection: sqlite3.Connection, table: str, cutoff_ns: int, dry_run: bool) -> TableCount:
    old, total = connection.execute(
        f"SELECT count(*) FILTER (WHERE written < ?), count(*) FROM {table}", [cutoff_ns]
    ).fetchone()
    if old and not dry_run:
        connection.execute(f"DELETE FROM {table} WHERE written < ?", [cutoff_ns])
    return TableCount(int(old), int(total) - int(old))
