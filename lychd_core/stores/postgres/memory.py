"""The PostgreSQL memory store: one shared store for a fleet of agent workers.

Same contract as :class:`~lychd_core.stores.sqlite.memory.SqliteMemoryStore`. Writers on any
machine serialize per memory id with transaction-scoped advisory locks taken in a fixed
order (no deadlocks); a batch of more than ``LOCKED_IDS_MAX`` ids takes the store-wide
lock instead, which every per-id writer also holds shared. Revision numbering, tombstones
and lifecycle compare-and-set are therefore checked against the committed newest state,
and the ``UNIQUE (memory_id, revision)`` constraint backs it. Reads of the whole store
(the index) come from one REPEATABLE READ snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors

from lychd_core.errors import (
    LychdError,
    MemoryStoreError,
    RevisionConflictError,
    StoreClosedError,
    StoreConnectionError,
)
from lychd_core.gcpause import cyclic_gc_paused
from lychd_core.memory.codec import stored_record, stored_row
from lychd_core.memory.index import MemoryIndex
from lychd_core.memory.plan import RetrievalPlan
from lychd_core.memory.query import MemoryQuery
from lychd_core.memory.records import MemoryRecord
from lychd_core.memory.tombstones import ActiveView, Tombstone, replay
from lychd_core.stores.admission import admit, admit_tombstone, check_digests, next_revision, tombstone_for
from lychd_core.stores.postgres.database import Database, lock_key, lock_space
from lychd_core.stores.postgres.schema import prepare_schema

T = TypeVar("T")
Conn = psycopg.Connection[Any]

LOCKED_IDS_MAX = 1_000
_CHUNK = 10_000
_INSERT = "INSERT INTO record_revisions (memory_id, revision, digest, observed, body) VALUES (%s, %s, %s, %s, %s)"


def _memory_error(message: str, connection_lost: bool) -> LychdError:
    return StoreConnectionError(message) if connection_lost else MemoryStoreError(message)


class PostgresMemoryStore:
    """Durable records and tombstones in a PostgreSQL schema, with a cached index. Use :meth:`open`."""

    def __init__(self, database: Database) -> None:
        self._db: Database | None = database
        self.path = database.where
        self._index: MemoryIndex | None = None
        self._index_at: int | None = None

    @classmethod
    def open(
        cls, dsn: str, *, schema: str = "lychd", create: bool = True, pool_size: int = 4, pool_timeout: float = 15.0
    ) -> PostgresMemoryStore:
        """Connect, then create (with ``create``) or migrate the schema; refuse a foreign or newer one.

        ``pool_timeout`` bounds how long a call waits for a connection (e.g. while the server
        restarts) before it fails with :class:`StoreConnectionError`.
        """
        database = Database(dsn, schema, _memory_error, pool_size=pool_size, pool_timeout=pool_timeout)
        conn = database.connect()
        try:
            with database.errors("open the memory store"):
                prepare_schema(conn, schema, database.where, create=create)
                conn.commit()
        finally:
            conn.close()
        return cls(database)

    @property
    def _database(self) -> Database:
        if self._db is None:
            raise StoreClosedError(f"memory store {self.path} is closed")
        return self._db

    @property
    def schema_version(self) -> int:
        row = self._read("read the schema version", "SELECT value FROM memory_meta WHERE key = 'version'")
        return int(row[0][0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> PostgresMemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- transactions -------------------------------------------------------------

    def _read(self, action: str, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._database.run(action, lambda conn: conn.execute(query, params).fetchall(), transaction=False)

    def _write(self, action: str, memory_ids: Sequence[str], body: Callable[[Conn], T]) -> T:
        """``body`` in one transaction holding the write locks of ``memory_ids``; bumps the generation."""
        database = self._database
        space = lock_space(database.schema)

        def locked(conn: Conn) -> T:
            if len(memory_ids) > LOCKED_IDS_MAX:
                conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (space,))
            else:
                conn.execute("SELECT pg_advisory_xact_lock_shared(%s, 0)", (space,))
                keys = sorted({lock_key(database.schema, memory_id) for memory_id in memory_ids})
                conn.execute("SELECT count(pg_advisory_xact_lock(k)) FROM unnest(%s::bigint[]) AS t(k)", (keys,))
            result = body(conn)
            conn.execute("UPDATE memory_generation SET n = n + 1 WHERE id = 1")
            return result

        try:
            return database.run(action, locked)
        except pg_errors.UniqueViolation as exc:  # pragma: no cover - the locks make this unreachable
            raise RevisionConflictError(f"{self.path}: {exc}") from None

    # --- reads --------------------------------------------------------------------

    @staticmethod
    def _latest_rows(conn: Conn, memory_ids: Sequence[str]) -> dict[str, tuple[Any, ...]]:
        found: dict[str, tuple[Any, ...]] = {}
        for start in range(0, len(memory_ids), _CHUNK):
            rows = conn.execute(
                "SELECT DISTINCT ON (memory_id) memory_id, revision, digest, body FROM record_revisions "
                "WHERE memory_id = ANY(%s) ORDER BY memory_id, revision DESC",
                (list(memory_ids[start : start + _CHUNK]),),
            )
            found.update((row[0], (int(row[1]), row[2], row[3])) for row in rows)
        return found

    @staticmethod
    def _stone_rows(conn: Conn, memory_ids: Sequence[str]) -> dict[str, tuple[Any, ...]]:
        found: dict[str, tuple[Any, ...]] = {}
        for start in range(0, len(memory_ids), _CHUNK):
            rows = conn.execute(
                "SELECT DISTINCT ON (memory_id) memory_id, revision, prior_digest FROM tombstones "
                "WHERE memory_id = ANY(%s) ORDER BY memory_id, revision DESC",
                (list(memory_ids[start : start + _CHUNK]),),
            )
            found.update((row[0], (int(row[1]), row[2])) for row in rows)
        return found

    def latest(self, memory_id: str) -> MemoryRecord | None:
        row = self._database.run(f"read memory {memory_id!r}", lambda c: self._latest_rows(c, [memory_id]))
        found = row.get(memory_id)
        return None if found is None else stored_record(found[2], found[1])

    @staticmethod
    def _all(conn: Conn) -> tuple[int, list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        generation = conn.execute("SELECT n FROM memory_generation WHERE id = 1").fetchone()
        records = conn.execute("SELECT body, digest FROM record_revisions ORDER BY memory_id, revision").fetchall()
        stones = conn.execute(
            "SELECT memory_id, revision, prior_digest, deleted_at, reason FROM tombstones ORDER BY memory_id, revision"
        ).fetchall()
        return int(generation[0]) if generation else 0, records, stones

    def _snapshot(self) -> tuple[int, tuple[MemoryRecord, ...], tuple[Tombstone, ...]]:
        generation, rows, stone_rows = self._database.run("read records", self._all, isolation="REPEATABLE READ")
        records = tuple(stored_record(body, digest) for body, digest in rows)
        stones = tuple(Tombstone.canonical_only(m, int(r), p, int(d), reason) for m, r, p, d, reason in stone_rows)
        return generation, records, stones

    def records(self) -> tuple[MemoryRecord, ...]:
        return self._snapshot()[1]

    def tombstones(self) -> tuple[Tombstone, ...]:
        return self._snapshot()[2]

    def view(self) -> ActiveView:
        _, records, stones = self._snapshot()
        return replay(records, stones)

    def last_observation(self) -> int:
        row = self._read(
            "read observations",
            "SELECT GREATEST(COALESCE((SELECT max(observed) FROM record_revisions), 0), "
            "COALESCE((SELECT max(deleted_at) FROM tombstones), 0))",
        )
        return int(row[0][0])

    # --- writes -------------------------------------------------------------------

    def add(self, record: MemoryRecord) -> bool:
        return self.add_many([record]) == 1

    def add_many(self, records: Iterable[MemoryRecord]) -> int:
        """Store revisions in one transaction (all or none); returns how many were new."""
        batch = list(records)
        for record in batch:
            if not isinstance(record, MemoryRecord):
                raise MemoryStoreError(f"add_many takes MemoryRecord values, got {type(record).__name__}")
        if not batch:
            return 0
        ids = list({record.memory_id: None for record in batch})

        def body(conn: Conn) -> int:
            stored = self._latest_rows(conn, ids) if _has_rows(conn, "record_revisions") else {}
            stones = self._stone_rows(conn, ids) if _has_rows(conn, "tombstones") else {}
            newest: dict[str, MemoryRecord] = {}
            pending: dict[tuple[str, int], str] = {}

            def held(memory_id: str, revision: int) -> str | None:
                if (memory_id, revision) in pending:
                    return pending[(memory_id, revision)]
                row = conn.execute(
                    "SELECT digest FROM record_revisions WHERE memory_id = %s AND revision = %s", (memory_id, revision)
                ).fetchone()
                return None if row is None else str(row[0])

            rows = []
            for record in batch:
                known = record.memory_id in stones or record.memory_id in stored or record.memory_id in newest
                if not known or admit(record, stored, stones, newest, held):
                    newest[record.memory_id] = record
                    pending[(record.memory_id, record.revision)] = record.digest
                    rows.append(stored_row(record))
            _insert_rows(conn, rows)
            return len(rows)

        return self._write("add records", ids, body)

    def transition(self, memory_id: str, change: Callable[[MemoryRecord], MemoryRecord]) -> MemoryRecord:
        """Compare-and-set: read the newest revision, apply ``change`` and store it, under the id's lock."""

        def body(conn: Conn) -> MemoryRecord:
            row = self._latest_rows(conn, [memory_id]).get(memory_id)
            new = next_revision(memory_id, row, change, self.path)
            conn.execute(_INSERT, stored_row(new))
            return new

        return self._write(f"change memory {memory_id!r}", [memory_id], body)

    def forget(self, memory_id: str, reason: str, observation: int) -> Tombstone:
        def body(conn: Conn) -> Tombstone:
            row = self._latest_rows(conn, [memory_id]).get(memory_id)
            forgotten = row is None and bool(self._stone_rows(conn, [memory_id]))
            stone = tombstone_for(memory_id, row, forgotten, reason, observation, self.path)
            _insert_tombstone(conn, stone)
            return stone

        return self._write(f"forget memory {memory_id!r}", [memory_id], body)

    def add_tombstone(self, stone: Tombstone) -> bool:
        def body(conn: Conn) -> bool:
            held = conn.execute(
                "SELECT prior_digest, deleted_at, reason FROM tombstones WHERE memory_id = %s AND revision = %s",
                (stone.memory_id, stone.revision),
            ).fetchone()
            same = conn.execute(
                "SELECT digest FROM record_revisions WHERE memory_id = %s AND revision = %s",
                (stone.memory_id, stone.revision),
            ).fetchone()
            stored = None if held is None else (held[0], int(held[1]), held[2])
            if not admit_tombstone(stone, stored, None if same is None else same[0]):
                return False
            _insert_tombstone(conn, stone)
            return True

        return self._write(f"store a tombstone of {stone.memory_id!r}", [stone.memory_id], body)

    # --- index and retrieval ------------------------------------------------------

    def rebuild_index(self) -> MemoryIndex:
        generation, records, stones = self._snapshot()
        # The SQLite store's rebuild over the same replay: see its comment (bench_memory.py --full).
        with cyclic_gc_paused():
            index = MemoryIndex(replay(records, stones))
        self._index, self._index_at = index, generation
        return index

    def index(self) -> MemoryIndex:
        """The cached index, rebuilt when any writer (any process, any machine) has committed since."""
        generation = int(self._read("read the generation", "SELECT n FROM memory_generation WHERE id = 1")[0][0])
        if self._index is None or self._index_at != generation:
            return self.rebuild_index()
        return self._index

    def query(self, query: MemoryQuery) -> RetrievalPlan:
        return self.index().retrieve(query)

    def stats(self) -> dict[str, Any]:
        index = self.index()
        revisions = int(self._read("count rows", "SELECT count(*) FROM record_revisions")[0][0])
        return {
            "path": self.path,
            "schema_version": self.schema_version,
            "revisions": revisions,
            "last_observation": self.last_observation(),
            "index_digest": index.digest,
            **index.stats(),
        }

    def check(self) -> dict[str, Any]:
        """Every stored digest recomputed; raises :class:`CorruptStoreError` on any fault."""
        rows = self._read("check integrity", "SELECT memory_id, revision, digest, body FROM record_revisions")
        return {"integrity": "ok", "revisions": check_digests(rows)}


def _has_rows(conn: Conn, table: str) -> bool:
    row = conn.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()
    return bool(row and row[0])


def _insert_rows(conn: Conn, rows: list[tuple[str, int, str, int, str]]) -> None:
    if len(rows) < 50:
        for row in rows:
            conn.execute(_INSERT, row)
        return
    with conn.cursor().copy("COPY record_revisions (memory_id, revision, digest, observed, body) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _insert_tombstone(conn: Conn, stone: Tombstone) -> None:
    conn.execute(
        "INSERT INTO tombstones (memory_id, revision, prior_digest, deleted_at, reason) VALUES (%s, %s, %s, %s, %s)",
        (stone.memory_id, stone.revision, stone.prior_digest, stone.deleted_at, stone.reason),
    )
    conn.execute(
        "DELETE FROM record_revisions WHERE memory_id = %s AND revision <= %s", (stone.memory_id, stone.revision)
    )
