"""The PostgreSQL projection cache: one cache shared by a fleet, entries verified on every read.

Entries carry the same keyed MAC as the SQLite cache (the key file stays on each machine,
outside the database: share it between the fleet's machines with your secrets tooling),
so a row edited in the database reads as a miss and is re-projected, never served.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from lychd_core.errors import LychdError, ProjectionCacheError, ReadOnlyCacheError
from lychd_core.families import Projected
from lychd_core.projection.cache_counts import (
    KEEP_COUNT_RECORDS,
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
from lychd_core.stores.postgres.cache_schema import (
    COUNTS_FROM,
    CREATE,
    RECORDS_FROM,
    VERSION,
    check_meta,
    may_delete,
    may_write,
    migrate,
)
from lychd_core.stores.postgres.database import Database, lock_space

__all__ = ["VERSION", "PostgresProjectionCache"]

BATCH = 1000  # values per batched SELECT


def _cache_error(message: str, connection_lost: bool) -> LychdError:
    return ProjectionCacheError(message)


class PostgresProjectionCache:
    """A projection cache in a PostgreSQL schema; opened lazily, one pool per process."""

    def __init__(self, dsn: str, *, schema: str = "lychd", key_path: Path | str, key: bytes | None = None) -> None:
        self._db = Database(dsn, schema, _cache_error, pool_size=2)
        self.key_path = Path(key_path)
        self._key = key
        self._ready = False
        self._lock = threading.Lock()
        self._detector_ids: dict[str, str] = {}
        self.version = VERSION
        """The cache schema as opened: older only for a read-only role (what it lacks reads as misses)."""
        self.read_only = False
        """True once opened by a role that may not write the cache: hits are served, nothing is stored."""

    def __repr__(self) -> str:
        return f"PostgresProjectionCache({self._db.where!r})"

    @property
    def secret(self) -> bytes:
        if self._key is None:
            self._key = load_or_create_key(self.key_path)
        return self._key

    def _database(self) -> Database:
        with self._lock:
            if not self._ready:
                self.secret  # noqa: B018 - a missing or bad key is refused before the database is touched
                conn = self._db.connect()
                try:
                    with self._db.errors("open the projection cache"):
                        self._prepare(conn)
                        conn.commit()
                finally:
                    conn.close()
                self._ready = True
        return self._db

    def _prepare(self, conn: psycopg.Connection[Any]) -> None:
        schema, where = self._db.schema, self._db.where
        conn.execute("SELECT pg_advisory_xact_lock(%s, 2)", (lock_space(schema),))
        # CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema exists: only when missing
        if conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
        meta = conn.execute("SELECT to_regclass('cache_meta') IS NOT NULL").fetchone()
        if not (meta and meta[0]):
            ours = conn.execute("SELECT to_regclass('projections') IS NOT NULL").fetchone()
            if ours and ours[0]:
                raise ProjectionCacheError(
                    f"{where} holds a projections table but no lychd cache_meta; left untouched. Name another schema"
                )
            for statement in CREATE:
                conn.execute(statement)
            self.version = VERSION
            return
        version = check_meta(dict(conn.execute("SELECT key, value FROM cache_meta").fetchall()), where)
        self.read_only = not may_write(conn)
        self.version = version
        if version < VERSION:
            if self.read_only and version >= COUNTS_FROM - 1:  # served as it is: what it lacks misses, none stored
                return
            if self.read_only:
                raise ProjectionCacheError(
                    f"{where} has cache schema {version} and this role may not migrate it to {VERSION}; "
                    "open it once as a role that may write it"
                )
            migrate(conn, version)
            self.version = VERSION

    def close(self) -> None:
        self._db.close()

    def _fetch(self, query: str, params: list[Any]) -> tuple[Any, ...] | None:
        database = self._database()
        row: tuple[Any, ...] | None = database.run(
            "read the cache", lambda c: c.execute(query, params).fetchone(), transaction=False
        )
        return row

    def get(self, key: CacheKey) -> tuple[Projected, bytes] | None:
        row = self._fetch(
            "SELECT payload, facts, entry_mac FROM projections WHERE source_digest = %s AND profile = %s "
            "AND revision = %s AND options_digest = %s AND parser_version = %s",
            key.as_list(),
        )
        return None if row is None else decode_entry(self.secret, key, row[0], row[1], row[2])

    def _fetch_in(self, query: str, fixed: list[Any], values: list[Any]) -> list[tuple[Any, ...]]:
        """Rows of ``query`` whose ``= ANY(%s)`` takes all ``values`` (one round trip per batch)."""
        found: list[tuple[Any, ...]] = []
        database = self._database()
        for start in range(0, len(values), BATCH):
            params = [*fixed, values[start : start + BATCH]]

            def read(c: psycopg.Connection[Any], params: list[Any] = params) -> list[tuple[Any, ...]]:
                return c.execute(query, params).fetchall()

            found.extend(database.run("read the cache", read, transaction=False))
        return found

    def get_many(self, keys: Sequence[CacheKey]) -> dict[CacheKey, tuple[Projected, bytes]]:
        rows = self._fetch_in(
            "SELECT source_digest, profile, revision, options_digest, parser_version, payload, facts, entry_mac "
            "FROM projections WHERE source_digest = ANY(%s)",
            [],
            sorted({key.source_digest for key in keys}),
        )
        return decode_entries(self.secret, keys, rows)

    def media_many(
        self, queries: Sequence[tuple[str, str, str | None]], declared: str = ""
    ) -> dict[tuple[str, str, str | None], MediaDecision]:
        detector = self._detector(declared)
        rows = self._fetch_in(
            "SELECT source_digest, file_name, pinned, decision, entry_mac FROM media_decisions "
            "WHERE detector = %s AND source_digest = ANY(%s)",
            [detector],
            sorted({query[0] for query in queries}),
        )
        return decode_media(self.secret, detector, queries, rows)

    def files(self, scope: str, paths: Sequence[str]) -> dict[str, FileRecord]:
        rows = self._fetch_in(
            "SELECT path, record, entry_mac FROM file_records WHERE scope = %s AND path = ANY(%s)",
            [scope],
            sorted(set(paths)),
        )
        return decode_file_records(self.secret, scope, rows) if rows else {}  # no rows: the key is not needed

    def remember_files(self, scope: str, records: Sequence[FileRecord]) -> None:
        now = time.time_ns()
        rows = [(scope, record.path, *record.encode(self.secret, scope), now) for record in records]
        self._write(
            "INSERT INTO file_records VALUES (%s, %s, %s, %s, %s) ON CONFLICT (scope, path) "
            "DO UPDATE SET record = EXCLUDED.record, entry_mac = EXCLUDED.entry_mac, written = EXCLUDED.written",
            rows,
        )

    def token_counts(self, counter: str, digests: Sequence[str]) -> dict[str, int]:
        if not digests or not self._counts_kept():
            return {}
        rows = self._fetch_in(
            "SELECT text_digest, count, entry_mac FROM token_counts WHERE counter = %s AND text_digest = ANY(%s)",
            [counter],
            sorted(set(digests)),
        )
        return decode_counts(self.secret, counter, rows) if rows else {}

    def remember_token_counts(self, counter: str, counts: Sequence[tuple[str, int]]) -> None:
        if not counts or not self._counts_kept():
            return
        now = time.time_ns()
        rows = [(*count_row(self.secret, counter, digest, count), now) for digest, count in counts]
        self._write(
            "INSERT INTO token_counts VALUES (%s, %s, %s, %s, %s) ON CONFLICT (text_digest, counter) "
            "DO UPDATE SET count = EXCLUDED.count, entry_mac = EXCLUDED.entry_mac, written = EXCLUDED.written",
            rows,
        )

    def _counts_kept(self, since: int = COUNTS_FROM) -> bool:
        """False for a read-only role on a cache older than ``since`` (the table is not there yet)."""
        self._database()
        return self.version >= since

    def count_record(self, counter: str, set_key: str) -> list[int] | None:
        """The verified counts by ``counter`` of the texts whose ordered digests make ``set_key``, or None."""
        if not self._counts_kept(RECORDS_FROM):
            return None
        row = self._fetch(
            "SELECT entry_mac, counts FROM count_records WHERE counter = %s AND set_digest = %s", [counter, set_key]
        )
        return None if row is None else decode_record(self.secret, counter, set_key, row[1], row[0])

    def remember_count_record(self, counter: str, set_key: str, counts: Sequence[int]) -> None:
        """Replace the record of ``counter`` for ``set_key``; only the newest ``KEEP_COUNT_RECORDS`` are kept."""
        if self._database_read_only():
            return
        payload, tag = encode_record(self.secret, counter, set_key, counts)

        def write(c: psycopg.Connection[Any]) -> None:
            c.execute(
                "INSERT INTO count_records VALUES (%s, %s, %s, %s, %s) ON CONFLICT (counter, set_digest) "
                "DO UPDATE SET written = EXCLUDED.written, entry_mac = EXCLUDED.entry_mac, counts = EXCLUDED.counts",
                (counter, set_key, time.time_ns(), tag, payload),
            )
            c.execute(
                "DELETE FROM count_records WHERE (counter, set_digest) NOT IN "
                "(SELECT counter, set_digest FROM count_records ORDER BY written DESC LIMIT %s)",
                (KEEP_COUNT_RECORDS,),
            )

        self._database().run("write the cache", write)

    def _detector(self, declared: str = "") -> str:
        if declared not in self._detector_ids:
            self._detector_ids[declared] = media_detector(declared)
        return self._detector_ids[declared]

    def media(self, source_digest: str, file_name: str, pinned: str | None, declared: str = "") -> MediaDecision | None:
        parameters = [source_digest, file_name, pinned or "", self._detector(declared)]
        row = self._fetch(
            "SELECT decision, entry_mac FROM media_decisions WHERE source_digest = %s AND file_name = %s "
            "AND pinned = %s AND detector = %s",
            list(parameters),
        )
        return None if row is None else media_decision(self.secret, parameters, row[0], row[1])

    def remember_media(self, decisions: list[tuple[str, str, str | None, MediaDecision]], declared: str = "") -> None:
        now = time.time_ns()
        rows = [
            (*media_row(self.secret, [digest, name, pinned or "", self._detector(declared)], decision), now)
            for digest, name, pinned, decision in decisions
        ]
        self._write(
            "INSERT INTO media_decisions VALUES (%s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (source_digest, file_name, pinned, detector) "
            "DO UPDATE SET decision = EXCLUDED.decision, entry_mac = EXCLUDED.entry_mac, written = EXCLUDED.written",
            rows,
        )

    def put_many(self, entries: list[tuple[CacheKey, Projected, bytes]]) -> None:
        now = time.time_ns()
        rows = [
            (*key.as_list(), *encode_entry(self.secret, key, outcome, facts), now) for key, outcome, facts in entries
        ]
        self._write(
            "INSERT INTO projections VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (source_digest, profile, revision, options_digest, parser_version) "
            "DO UPDATE SET payload = EXCLUDED.payload, facts = EXCLUDED.facts, entry_mac = EXCLUDED.entry_mac, "
            "written = EXCLUDED.written",
            rows,
        )

    def put(self, key: CacheKey, outcome: Projected, facts: bytes) -> None:
        self.put_many([(key, outcome, facts)])

    def _write(self, query: str, rows: list[tuple[Any, ...]]) -> None:
        if rows and not self._database_read_only():
            # Sorted rows lock in one order, so concurrent upserts of overlapping batches cannot deadlock.
            ordered = sorted(rows, key=lambda row: tuple(str(v) for v in row[:5]))
            self._database().run("write the cache", lambda c: c.cursor().executemany(query, ordered))

    def _database_read_only(self) -> bool:
        self._database()
        return self.read_only

    def prune(self, cutoff_ns: int, *, dry_run: bool = False) -> PruneReport:
        """Remove every row written before ``cutoff_ns`` in one transaction (``cache_prune``); a role that
        may not delete from every table (or open the cache to write) raises ``ReadOnlyCacheError``."""
        database = self._database()

        def prune(c: psycopg.Connection[Any]) -> dict[str, TableCount]:
            if self.read_only or not may_delete(c):
                raise ReadOnlyCacheError(
                    f"{self._db.where} is read-only for this role (no DELETE on every cache table, or a schema "
                    f"older than {VERSION} it may not migrate): prune removed nothing. Run it as the cache's owner"
                )
            return {
                table: _prune_table(c, table, cutoff_ns, dry_run) for table in PRUNED_TABLES if table != "run_records"
            }

        return PruneReport(cutoff_ns, dry_run, database.run("prune the cache", prune))

    def count(self) -> int:
        row = self._fetch("SELECT count(*) FROM projections", [])
        return 0 if row is None else int(row[0])


def _prune_table(c: psycopg.Connection[Any], table: str, cutoff_ns: int, dry_run: bool) -> TableCount:
    name = sql.Identifier(table)
    row = c.execute(
        sql.SQL("SELECT count(*) FILTER (WHERE written < %s), count(*) FROM {}").format(name), (cutoff_ns,)
    ).fetchone()
    old, total = (int(row[0]), int(row[1])) if row else (0, 0)
    if old and not dry_run:
        c.execute(sql.SQL("DELETE FROM {} WHERE written < %s").format(name), (cutoff_ns,))
    return TableCount(old, total - old)
