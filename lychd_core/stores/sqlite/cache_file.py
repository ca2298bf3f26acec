"""Opening the projection cache's SQLite file: create it beside its path and link it into
place, refuse a file that is not ours, move a damaged one aside, open read-only files
read-only, and stand in with an empty in-memory cache where none can be created.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from contextlib import suppress
from pathlib import Path

from lychd_core.errors import ProjectionCacheError
from lychd_core.projection.cache_counts import COUNT_RECORDS_TABLE, TOKEN_COUNTS_TABLE
from lychd_core.state.paths import sqlite_identity
from lychd_core.state.readonly import connect_read_only, creatable, writable

APPLICATION_ID = 0x4C594348  # "LYCH"
SCHEMA_VERSION = 5  # 2: entries carry a keyed MAC instead of a plain digest; 3: file records; 4: see below
# Token counts (cache_counts.py) came without a new version: the table is only added (on first write), an
# older schema-4 file stays valid and warm, and a read-only one without it serves entries with counts missing.
# 5: count records, and a ``written`` time on every row (what ``lychd cache prune --older-than`` reads). A
# schema-4 file is migrated in place (columns added, entries kept warm); read-only, it is served as it is.
READABLE_VERSIONS = (4, SCHEMA_VERSION)
WRITTEN = "written INTEGER NOT NULL DEFAULT 0"
STAMPED = ("projections", "media_decisions", "file_records", "token_counts")
"""The tables that gained ``written`` in schema 5 (run and count records always had it)."""
BUSY_TIMEOUT_MS = 10_000
PAGE_SIZE = 65_536
"""SQLite's largest page, for a new cache file: a run writes thousands of entries of a few KB and one
record of megabytes, and the WAL takes one frame (and write) per page; 8 KB pages made a 2,000-file
cold run's writes about twice as costly (about 110 ms against 50 ms), with no slower reads measured."""

RUN_RECORDS_TABLE = """
CREATE TABLE IF NOT EXISTS run_records (
    run_key TEXT PRIMARY KEY,
    written INTEGER NOT NULL,
    entry_digest TEXT NOT NULL,
    record BLOB NOT NULL
)
"""
"""The MAC sits before the record (schema 4): SQLite reads a row's columns in order, so a MAC
after a 12 MB record cost a walk of its whole overflow chain (about 2.5 ms) on every lookup.
Also created on first write, as a cache made before run records had none."""

_CREATE = (
    """
CREATE TABLE IF NOT EXISTS projections (
    source_digest TEXT NOT NULL,
    profile TEXT NOT NULL,
    revision INTEGER NOT NULL,
    options_digest TEXT NOT NULL,
    parser_version TEXT NOT NULL,
    payload TEXT NOT NULL,
    facts TEXT NOT NULL,
    entry_digest TEXT NOT NULL,
    written INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (source_digest, profile, revision, options_digest, parser_version)
)
""",
    """
CREATE TABLE IF NOT EXISTS media_decisions (
    source_digest TEXT NOT NULL,
    file_name TEXT NOT NULL,
    pinned TEXT NOT NULL,
    detector TEXT NOT NULL,
    decision TEXT NOT NULL,
    entry_digest TEXT NOT NULL,
    written INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (source_digest, file_name, pinned, detector)
) WITHOUT ROWID
""",
    """
CREATE TABLE IF NOT EXISTS file_records (
    scope TEXT NOT NULL,
    path TEXT NOT NULL,
    record TEXT NOT NULL,
    entry_digest TEXT NOT NULL,
    written INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (scope, path)
) WITHOUT ROWID
""",
    RUN_RECORDS_TABLE,
    TOKEN_COUNTS_TABLE,
    COUNT_RECORDS_TABLE,
)


class CacheFile:
    """The connection half of :class:`~lychd_core.stores.sqlite.cache.ProjectionCache`: one
    SQLite file, opened lazily, once per process. A subclass provides ``secret`` (the MAC
    key, loaded before the database is touched)."""

    path: Path
    moved_aside: list[Path]
    read_only: bool
    _lock: threading.Lock
    _connection: sqlite3.Connection | None
    _pid: int

    @property
    def secret(self) -> bytes:
        raise NotImplementedError

    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        if not self.path.exists() and not creatable(self.path):  # a read-only workspace: run without a cache
            return self._stand_in()
        self.secret  # noqa: B018 - a missing or bad key is refused before the database is touched
        if self._check_ours():
            self._create()
        elif not writable(self.path):  # read hits, write nothing (not even a WAL): see state/readonly.py
            return self._open_read_only()
        try:
            connection = self._open()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise ProjectionCacheError(f"projection cache {self.path} is locked: {exc}") from None
            self._move_aside()
            self._create()
            try:
                connection = self._open()
            except sqlite3.Error as again:
                raise ProjectionCacheError(f"projection cache {self.path} cannot be recreated: {again}") from None
        self._connection, self._pid = connection, os.getpid()
        return connection

    def _check_ours(self) -> bool:
        """True when no file exists yet; raises for anything there that is not a lychd projection cache."""
        if self.path.is_dir():
            raise ProjectionCacheError(f"projection cache path {self.path} is a directory; it was left untouched")
        identity = sqlite_identity(self.path)
        if identity is None:
            return True
        is_sqlite, application_id = identity
        if not is_sqlite:
            raise ProjectionCacheError(
                f"{self.path} exists and is not a lychd projection cache (not an SQLite database); it was left "
                "untouched. Point stores.projection_cache.path at its own file"
            )
        if application_id != APPLICATION_ID:
            raise ProjectionCacheError(
                f"{self.path} is an SQLite database of another application (application_id {application_id:#x}); "
                "it was left untouched. Point stores.projection_cache.path at its own file"
            )
        return False

    def _create(self) -> None:
        """Build an empty cache beside the path and link it into place (a concurrent creator may win)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProjectionCacheError(
                f"projection cache directory {self.path.parent} cannot be created: {exc}"
            ) from None
        scratch = self.path.with_name(f".{self.path.name}.creating-{os.getpid()}-{time.monotonic_ns()}")
        try:
            connection = sqlite3.connect(scratch, isolation_level=None)
            try:
                connection.execute(f"PRAGMA page_size = {PAGE_SIZE}")
                connection.execute("PRAGMA journal_mode = WAL")
                self._claim(connection)
            finally:
                connection.close()
            with suppress(FileExistsError):
                os.link(scratch, self.path)
        except (OSError, sqlite3.Error) as exc:
            raise ProjectionCacheError(f"projection cache {self.path} cannot be created: {exc}") from None
        finally:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with suppress(FileNotFoundError):
                    scratch.with_name(scratch.name + suffix).unlink()

    def _stand_in(self) -> sqlite3.Connection:
        """An empty cache in memory for a cache that cannot be created: every lookup misses, nothing is kept."""
        connection = sqlite3.connect(":memory:", isolation_level=None)
        for statement in _CREATE:
            connection.execute(statement)
        self.read_only = True
        self._connection, self._pid = connection, os.getpid()
        return connection

    def _open_read_only(self) -> sqlite3.Connection:
        try:
            connection = connect_read_only(self.path, BUSY_TIMEOUT_MS / 1000)
            identity = self._identity(connection)
        except sqlite3.Error as exc:
            raise ProjectionCacheError(f"read-only projection cache {self.path} cannot be read: {exc}") from None
        if identity[0] != APPLICATION_ID or identity[1] not in READABLE_VERSIONS:
            connection.close()
            raise ProjectionCacheError(
                f"projection cache {self.path} has schema {identity[1]} (this lychd uses {SCHEMA_VERSION}) and is "
                "read-only for this user; open it once as a user who may write it, or run with --no-cache"
            )
        self.read_only = True
        self._connection, self._pid = connection, os.getpid()
        return connection

    def _open(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if self._identity(connection) != (APPLICATION_ID, SCHEMA_VERSION):
                # Check again under the write lock: another process may be migrating it right now.
                connection.execute("BEGIN IMMEDIATE")
                try:
                    self._claim(connection)
                    connection.execute("COMMIT")
                except BaseException:
                    connection.execute("ROLLBACK")
                    raise
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            return connection
        except BaseException:
            connection.close()
            raise

    @staticmethod
    def _identity(connection: sqlite3.Connection) -> tuple[int, int]:
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        return int(application_id), int(connection.execute("PRAGMA user_version").fetchone()[0])

    def _claim(self, connection: sqlite3.Connection) -> None:
        """Create the schema in a new (or older-schema) cache; refuse anything foreign or newer."""
        application_id, version = self._identity(connection)
        tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if application_id != APPLICATION_ID and (tables or application_id):
            raise ProjectionCacheError(
                f"{self.path} is an SQLite database of another application (application_id "
                f"{application_id:#x}); point stores.projection_cache at its own file"
            )
        if version > SCHEMA_VERSION:
            raise ProjectionCacheError(
                f"{self.path} was written by a newer lychd (cache schema {version}, this one reads "
                f"{SCHEMA_VERSION}); use a separate cache file"
            )
        if version == 4 and application_id == APPLICATION_ID:
            self._migrate_4(connection)
        elif version != SCHEMA_VERSION or application_id != APPLICATION_ID:
            connection.execute("DROP TABLE IF EXISTS projections")
            connection.execute("DROP TABLE IF EXISTS media_decisions")
            connection.execute("DROP TABLE IF EXISTS file_records")
            connection.execute("DROP TABLE IF EXISTS run_records")
            connection.execute("DROP TABLE IF EXISTS token_counts")
            connection.execute("DROP TABLE IF EXISTS count_records")
            for statement in _CREATE:
                connection.execute(statement)
            connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @staticmethod
    def _migrate_4(connection: sqlite3.Connection) -> None:
        """Schema 4 -> 5 in place (in the caller's write transaction): entries stay valid and warm."""
        for statement in _CREATE:  # the tables a schema-4 file may lack (token_counts, run_records, count_records)
            connection.execute(statement)
        for table in STAMPED:
            columns = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
            if "written" not in columns:
                connection.execute(f"ALTER TABLE {table} ADD COLUMN {WRITTEN}")
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _move_aside(self) -> None:
        """Keep a damaged cache file for inspection and start a new one (with its WAL and index)."""
        self._check_ours()  # only a file that carries the cache's own header is ever moved
        stamp = f"corrupt-{os.getpid()}-{time.monotonic_ns()}"
        for suffix in ("", "-wal", "-shm"):
            current = self.path.with_name(self.path.name + suffix)
            if current.exists():
                aside = self.path.with_name(f"{self.path.name}.{stamp}{suffix}")
                try:
                    current.replace(aside)
                except OSError as exc:
                    raise ProjectionCacheError(f"corrupt projection cache {current} cannot be moved: {exc}") from None
                if not suffix:
                    self.moved_aside.append(aside)

    def close(self) -> None:
        with self._lock:
            self._discard_connection()

    def _discard_connection(self) -> None:
        if self._connection is not None and self._pid == os.getpid():
            self._connection.close()
        self._connection = None
