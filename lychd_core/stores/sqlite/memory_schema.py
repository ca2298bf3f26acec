"""The memory store's schema, its ordered migrations and the checks made on open.

The file is marked with an SQLite ``application_id`` and its schema version lives in
``user_version`` (plus a ``meta`` row naming the format), so a foreign SQLite file is
refused before anything writes to it, and a newer schema is refused rather than misread.
Record revisions and tombstones are append-only, enforced by triggers: a record
revision may be deleted only when a tombstone at or above its revision exists (that is
how forgetting removes content), and nothing is ever updated.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from lychd_core.errors import MemoryStoreError
from lychd_core.memory.errors import CorruptStoreError, ForeignDatabaseError, StoreMissingError, StoreVersionError
from lychd_core.state.paths import sqlite_identity

APPLICATION_ID = 0x4C594D45
"""``b"LYME"``: lychd memory."""
FORMAT = "lychd-memory"


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "meta, append-only record revisions and tombstones",
        (
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT",
            f"INSERT INTO meta (key, value) VALUES ('format', '{FORMAT}')",
            """CREATE TABLE record_revisions (
                seq INTEGER PRIMARY KEY,
                memory_id TEXT NOT NULL,
                revision INTEGER NOT NULL CHECK (revision > 0),
                digest TEXT NOT NULL,
                observed INTEGER NOT NULL,
                body TEXT NOT NULL,
                UNIQUE (memory_id, revision)
            ) STRICT""",
            """CREATE TABLE tombstones (
                seq INTEGER PRIMARY KEY,
                memory_id TEXT NOT NULL,
                revision INTEGER NOT NULL CHECK (revision > 0),
                prior_digest TEXT NOT NULL,
                deleted_at INTEGER NOT NULL,
                reason TEXT NOT NULL,
                UNIQUE (memory_id, revision)
            ) STRICT""",
        ),
    ),
    Migration(
        2,
        "append-only guards: no updates; a record revision leaves only under a dominating tombstone",
        (
            """CREATE TRIGGER record_revisions_no_update BEFORE UPDATE ON record_revisions
               BEGIN SELECT RAISE(ABORT, 'lychd memory: record revisions are append-only'); END""",
            """CREATE TRIGGER record_revisions_forget_only BEFORE DELETE ON record_revisions
               WHEN NOT EXISTS (
                   SELECT 1 FROM tombstones t WHERE t.memory_id = OLD.memory_id AND t.revision >= OLD.revision
               )
               BEGIN SELECT RAISE(ABORT, 'lychd memory: only a dominating tombstone removes a record'); END""",
            """CREATE TRIGGER tombstones_no_update BEFORE UPDATE ON tombstones
               BEGIN SELECT RAISE(ABORT, 'lychd memory: tombstones are append-only'); END""",
            """CREATE TRIGGER tombstones_no_delete BEFORE DELETE ON tombstones
               BEGIN SELECT RAISE(ABORT, 'lychd memory: tombstones are append-only'); END""",
        ),
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version


def apply_migrations(conn: sqlite3.Connection, current: int, target: int = LATEST_VERSION) -> int:
    """Apply migrations ``current+1 .. target`` inside the caller's write transaction."""
    for migration in MIGRATIONS:
        if current < migration.version <= target:
            for statement in migration.statements:
                conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {target}")
    return target


def check_store_file(path: Path) -> None:
    """Refuse, from the header alone and without writing, a file that is not a lychd memory store."""
    identity = sqlite_identity(path)
    if identity is None:
        raise StoreMissingError(f"no memory store at {path}")
    is_sqlite, app_id = identity
    if not is_sqlite:
        size = path.stat().st_size
        what = "an empty file" if size == 0 else f"not an SQLite database ({size} bytes, bad header)"
        raise CorruptStoreError(f"{path} is {what}, not a lychd memory store; it was left untouched")
    if app_id != APPLICATION_ID:
        raise ForeignDatabaseError(
            f"{path} is an SQLite database of another application (application_id {app_id:#x}), "
            "not a lychd memory store; it was left untouched"
        )


def check_identity(conn: sqlite3.Connection, path: Path, *, fresh_file: bool = False) -> bool:
    """True for a new empty database (only while creating one); raises for a foreign or newer one."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if fresh_file and app_id == 0 and version == 0 and tables == 0:
        return True
    if app_id != APPLICATION_ID:
        raise ForeignDatabaseError(
            f"{path} is an SQLite database of another application (application_id {app_id:#x}, "
            f"{tables} schema objects), not a lychd memory store; it was left untouched"
        )
    if version > LATEST_VERSION:
        raise StoreVersionError(
            f"memory store {path} has schema version {version}; this lychd-core reads up to "
            f"{LATEST_VERSION}. Upgrade lychd-core"
        )
    return False


def check_read_only(conn: sqlite3.Connection, path: Path) -> None:
    """The checks :func:`prepare` makes, without writing: a store that needs a migration is refused."""
    check_identity(conn, path)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version < LATEST_VERSION:
        raise StoreVersionError(
            f"memory store {path} has schema version {version} and needs migrating to {LATEST_VERSION}, but it is "
            "read-only for this user; open it once as a user who may write it"
        )
    row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    if row is None or row[0] != FORMAT:
        raise ForeignDatabaseError(f"{path} carries the lychd memory id but no '{FORMAT}' format row")


def prepare(conn: sqlite3.Connection, path: Path, *, fresh_file: bool = False) -> None:
    """Check identity before writing anything, then switch to WAL and create or migrate the schema."""
    fresh = check_identity(conn, path, fresh_file=fresh_file)
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise MemoryStoreError(f"memory store {path} cannot use WAL journaling (got {mode})")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA secure_delete = ON")  # forgotten content is overwritten, not left in free pages
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if fresh or version < LATEST_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            check_identity(conn, path, fresh_file=fresh_file)  # another process may have migrated it meanwhile
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            if current < LATEST_VERSION:
                apply_migrations(conn, current)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    if row is None or row[0] != FORMAT:
        raise ForeignDatabaseError(f"{path} carries the lychd memory id but no '{FORMAT}' format row")
