"""The embedded SQLite memory store.

WAL journal, ``synchronous=FULL`` (an acknowledged write survives a crash), every write
in one ``BEGIN IMMEDIATE`` transaction (several processes may write at once; the busy
timeout makes them queue), append-only record revisions and tombstones. A write that
fails for any reason rolls back whole: nothing is half-written. One store object per
process or thread; open another for each.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from lychd_core.errors import (
    CorruptStoreError,
    MemoryStoreError,
    StoreClosedError,
    StoreMissingError,
)
from lychd_core.gcpause import cyclic_gc_paused
from lychd_core.memory.codec import stored_record, stored_row
from lychd_core.memory.index import MemoryIndex
from lychd_core.memory.plan import RetrievalPlan
from lychd_core.memory.query import MemoryQuery
from lychd_core.memory.records import MemoryRecord
from lychd_core.memory.tombstones import ActiveView, Tombstone, replay
from lychd_core.state.paths import sqlite_identity
from lychd_core.state.readonly import connect_read_only, writable
from lychd_core.state.sqlite_tx import immediate
from lychd_core.stores.admission import admit, admit_tombstone, check_digests, next_revision, tombstone_for
from lychd_core.stores.sqlite.errors import store_errors
from lychd_core.stores.sqlite.memory_schema import check_read_only, check_store_file, prepare

_CHUNK = 500  # ids per IN (...) lookup, below SQLite's parameter limit


def _create(path: Path, busy_timeout_ms: int) -> None:
    """Build a new store beside ``path`` and link it into place, so no reader ever sees a half-made file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MemoryStoreError(f"cannot create the directory of memory store {path}: {exc}") from None
    scratch = path.with_name(f".{path.name}.creating-{os.getpid()}-{os.urandom(6).hex()}")
    try:
        with store_errors(path, "create"):
            conn = sqlite3.connect(scratch, timeout=busy_timeout_ms / 1000, isolation_level=None)
            try:
                prepare(conn, scratch, fresh_file=True)
            finally:
                conn.close()  # the last close checkpoints the WAL into the file
        try:
            os.link(scratch, path)
        except FileExistsError:
            pass  # another process created it first; open theirs
        except OSError as exc:
            raise MemoryStoreError(f"cannot create memory store {path}: {exc}") from None
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with suppress(FileNotFoundError):
                scratch.with_name(scratch.name + suffix).unlink()


class SqliteMemoryStore:
    """Durable records and tombstones, with a cached index over them. Use :meth:`open`."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self._writes = 0
        self._index: MemoryIndex | None = None
        self._index_at: tuple[int, int] | None = None
        self.read_only = False

    # --- opening ----------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True, busy_timeout_ms: int = 5_000) -> SqliteMemoryStore:
        """Open (and with ``create``, create) the store; migrate an older schema.

        Refuses a file that is not SQLite, an SQLite file of another application, and a
        newer schema, without writing to any of them.
        """
        path = Path(path)
        if path.is_dir():
            raise MemoryStoreError(f"memory store path {path} is a directory; name a file")
        if sqlite_identity(path) is None:
            if not create:
                raise StoreMissingError(f"no memory store at {path}; add a memory first (lychd memory add FILE.json)")
            _create(path, busy_timeout_ms)
        check_store_file(path)
        if not writable(path):
            return cls._open_read_only(path, busy_timeout_ms)
        with store_errors(path, "open"):
            conn = sqlite3.connect(path, timeout=busy_timeout_ms / 1000, isolation_level=None)
        store = cls(conn, path)
        try:
            with store_errors(path, "open"):
                conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                prepare(conn, path)
        except BaseException:
            conn.close()
            raise
        return store

    @classmethod
    def _open_read_only(cls, path: Path, busy_timeout_ms: int) -> SqliteMemoryStore:
        """A store this process may read but not write: queried as it is, never migrated; writes refuse."""
        with store_errors(path, "open read-only"):
            conn = connect_read_only(path, busy_timeout_ms / 1000)
        try:
            with store_errors(path, "open read-only"):
                check_read_only(conn, path)
        except BaseException:
            conn.close()
            raise
        store = cls(conn, path)
        store.read_only = True
        return store

    @property
    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreClosedError(f"memory store {self.path} is closed")
        return self._conn

    @property
    def schema_version(self) -> int:
        with store_errors(self.path, "read the schema version"):
            return int(self._connection.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> SqliteMemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: committed whole, or rolled back whole."""
        conn = self._connection
        if self.read_only:
            raise MemoryStoreError(
                f"memory store {self.path} is read-only for this user (the file or its folder cannot be written); "
                "nothing was written. Run this as a user who may write it"
            )
        with immediate(conn, self.path, "write", store_errors, starting="start a write"):
            yield conn
        self._writes += 1

    # --- reads ------------------------------------------------------------------

    def _newest(self, table: str, columns: str, memory_ids: Sequence[str]) -> dict[str, tuple[Any, ...]]:
        """``(MAX(revision), *columns)`` of the newest row per id (SQLite takes bare columns from that row)."""
        found: dict[str, tuple[Any, ...]] = {}
        conn = self._connection
        for start in range(0, len(memory_ids), _CHUNK):
            chunk = memory_ids[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT memory_id, MAX(revision), {columns} FROM {table} "
                f"WHERE memory_id IN ({marks}) GROUP BY memory_id",
                chunk,
            )
            found.update((row[0], tuple(row[1:])) for row in rows)
        return found

    def _has_rows(self, table: str) -> bool:
        return self._connection.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None

    def _latest(self, memory_ids: Sequence[str]) -> dict[str, tuple[Any, ...]]:
        """Newest stored ``(revision, digest, body)`` per id."""
        return self._newest("record_revisions", "digest, body", memory_ids)

    def _stones(self, memory_ids: Sequence[str]) -> dict[str, tuple[Any, ...]]:
        """Highest tombstone ``(revision, prior_digest)`` per id."""
        return self._newest("tombstones", "prior_digest", memory_ids)

    def latest(self, memory_id: str) -> MemoryRecord | None:
        """The newest stored revision of ``memory_id``, or ``None``."""
        with store_errors(self.path, f"read memory {memory_id!r}"):
            row = self._latest([memory_id]).get(memory_id)
        return None if row is None else stored_record(row[2], row[1])

    def records(self) -> tuple[MemoryRecord, ...]:
        """Every stored revision in canonical (memory id, revision) order."""
        with store_errors(self.path, "read records"):
            rows = self._connection.execute(
                "SELECT body, digest FROM record_revisions ORDER BY memory_id, revision"
            ).fetchall()
        return tuple(stored_record(body, digest) for body, digest in rows)

    def tombstones(self) -> tuple[Tombstone, ...]:
        """Every tombstone in canonical (memory id, revision) order."""
        with store_errors(self.path, "read tombstones"):
            rows = self._connection.execute(
                "SELECT memory_id, revision, prior_digest, deleted_at, reason FROM tombstones "
                "ORDER BY memory_id, revision"
            ).fetchall()
        return tuple(Tombstone.canonical_only(*row) for row in rows)

    def view(self) -> ActiveView:
        return replay(self.records(), self.tombstones())

    def last_observation(self) -> int:
        """The highest observation in the store (0 when empty): a deterministic default for "now"."""
        with store_errors(self.path, "read observations"):
            conn = self._connection
            records = conn.execute("SELECT MAX(observed) FROM record_revisions").fetchone()[0]
            stones = conn.execute("SELECT MAX(deleted_at) FROM tombstones").fetchone()[0]
        return max(records or 0, stones or 0)

    # --- writes -----------------------------------------------------------------

    def add(self, record: MemoryRecord) -> bool:
        """Store one revision; ``False`` when the identical revision is already stored."""
        return self.add_many([record]) == 1

    def add_many(self, records: Iterable[MemoryRecord]) -> int:
        """Store revisions in one transaction (all or none); returns how many were new.

        Each revision must follow the newest stored (or earlier in the batch) revision of
        its id under :func:`check_successor`, and stay above any tombstone of its id.
        """
        batch = list(records)
        for record in batch:
            if not isinstance(record, MemoryRecord):
                raise MemoryStoreError(f"add_many takes MemoryRecord values, got {type(record).__name__}")
        if not batch:
            return 0
        ids = list({record.memory_id: None for record in batch})  # unique, in batch order
        added = 0
        with self._write() as conn:
            # An empty table needs no per-id lookups (the common bulk import).
            stored = self._latest(ids) if self._has_rows("record_revisions") else {}
            stones = self._stones(ids) if self._has_rows("tombstones") else {}
            newest: dict[str, MemoryRecord] = {}
            repeats = len(ids) < len(batch)  # only then can a batch record follow another of its id

            def rows() -> Iterator[tuple[str, int, str, int, str]]:
                # Streamed into executemany: earlier rows of the batch are already inserted
                # (and visible to _admit's lookups) when later ones are checked.
                nonlocal added
                for record in batch:
                    known = record.memory_id in stones or record.memory_id in stored or record.memory_id in newest
                    if not known or self._admit(record, stored, stones, newest):
                        if repeats:
                            newest[record.memory_id] = record
                        added += 1
                        yield stored_row(record)

            conn.executemany(
                "INSERT INTO record_revisions (memory_id, revision, digest, observed, body) VALUES (?, ?, ?, ?, ?)",
                rows(),
            )
        return added

    def _admit(
        self,
        record: MemoryRecord,
        stored: dict[str, tuple[Any, ...]],
        stones: dict[str, tuple[Any, ...]],
        newest: dict[str, MemoryRecord],
    ) -> bool:
        return admit(record, stored, stones, newest, self._held_digest)

    def _held_digest(self, memory_id: str, revision: int) -> str | None:
        # Earlier rows of the batch are already inserted (streamed), so the table answers for them too.
        row = self._connection.execute(
            "SELECT digest FROM record_revisions WHERE memory_id = ? AND revision = ?", (memory_id, revision)
        ).fetchone()
        return None if row is None else str(row[0])

    def transition(self, memory_id: str, change: Callable[[MemoryRecord], MemoryRecord]) -> MemoryRecord:
        """Read the newest revision, apply ``change`` (e.g. ``lambda r: review(r, 9)``) and store the
        result, all in one write transaction so no other writer can interleave."""
        with self._write() as conn:
            new = next_revision(memory_id, self._latest([memory_id]).get(memory_id), change, str(self.path))
            conn.execute(
                "INSERT INTO record_revisions (memory_id, revision, digest, observed, body) VALUES (?, ?, ?, ?, ?)",
                stored_row(new),
            )
        return new

    def forget(self, memory_id: str, reason: str, observation: int) -> Tombstone:
        """Tombstone the newest revision and delete every stored revision of the id (content is not kept)."""
        with self._write():
            row = self._latest([memory_id]).get(memory_id)
            forgotten = row is None and bool(self._stones([memory_id]))
            stone = tombstone_for(memory_id, row, forgotten, reason, observation, str(self.path))
            self._insert_tombstone(stone)
        self._checkpoint()
        return stone

    def add_tombstone(self, stone: Tombstone) -> bool:
        """Store a tombstone made elsewhere (for example an import); ``False`` if already stored."""
        with self._write() as conn:
            held = conn.execute(
                "SELECT prior_digest, deleted_at, reason FROM tombstones WHERE memory_id = ? AND revision = ?",
                (stone.memory_id, stone.revision),
            ).fetchone()
            same = conn.execute(
                "SELECT digest FROM record_revisions WHERE memory_id = ? AND revision = ?",
                (stone.memory_id, stone.revision),
            ).fetchone()
            stored = None if held is None else (held[0], int(held[1]), held[2])
            if not admit_tombstone(stone, stored, None if same is None else same[0]):
                return False
            self._insert_tombstone(stone)
        self._checkpoint()
        return True

    def _insert_tombstone(self, stone: Tombstone) -> None:
        conn = self._connection
        conn.execute(
            "INSERT INTO tombstones (memory_id, revision, prior_digest, deleted_at, reason) VALUES (?, ?, ?, ?, ?)",
            (stone.memory_id, stone.revision, stone.prior_digest, stone.deleted_at, stone.reason),
        )
        conn.execute(
            "DELETE FROM record_revisions WHERE memory_id = ? AND revision <= ?", (stone.memory_id, stone.revision)
        )

    def _checkpoint(self) -> None:
        # Best effort: move the deletion into the main file so the WAL keeps no forgotten pages.
        with suppress(sqlite3.Error):
            self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # --- index and retrieval ----------------------------------------------------

    def rebuild_index(self) -> MemoryIndex:
        """Rebuild the index from the stored records and tombstones (and cache it)."""
        with store_errors(self.path, "read the data version"):
            version = self._connection.execute("PRAGMA data_version").fetchone()[0]
        # Kept (issue 26): `bench_memory.py --full` measured store rebuild per record 1.4-1.8x
        # from 100k to 1M records without a pause (goal <= 1.5), 1.08x with it.
        with cyclic_gc_paused():
            index = MemoryIndex(self.view())
        self._index, self._index_at = index, (version, self._writes)
        return index

    def index(self) -> MemoryIndex:
        """The cached index, rebuilt when this or another connection has written since."""
        with store_errors(self.path, "read the data version"):
            version = self._connection.execute("PRAGMA data_version").fetchone()[0]
        if self._index is None or self._index_at != (version, self._writes):
            return self.rebuild_index()
        return self._index

    def query(self, query: MemoryQuery) -> RetrievalPlan:
        """Retrieve through the (cached) index; the path ``lychd assemble`` uses."""
        return self.index().retrieve(query)

    def stats(self) -> dict[str, Any]:
        index = self.index()
        with store_errors(self.path, "count rows"):
            conn = self._connection
            revisions = conn.execute("SELECT count(*) FROM record_revisions").fetchone()[0]
        return {
            "path": str(self.path),
            "schema_version": self.schema_version,
            "revisions": revisions,
            "last_observation": self.last_observation(),
            "index_digest": index.digest,
            **index.stats(),
        }

    def check(self) -> dict[str, Any]:
        """``PRAGMA integrity_check`` plus every stored digest recomputed; raises on any fault."""
        with store_errors(self.path, "check integrity"):
            conn = self._connection
            result = [row[0] for row in conn.execute("PRAGMA integrity_check")]
            rows = conn.execute("SELECT memory_id, revision, digest, body FROM record_revisions").fetchall()
        if result != ["ok"]:
            raise CorruptStoreError(f"memory store {self.path} fails integrity_check: {'; '.join(result[:5])}")
        return {"integrity": "ok", "revisions": check_digests(rows)}
