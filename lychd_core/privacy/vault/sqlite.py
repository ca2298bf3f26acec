"""SQLite plumbing shared by the vault and its key store: durable settings, typed errors, one write."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from lychd_core.privacy.vault.errors import VaultIntegrityError, VaultLockedError, VaultStoreError
from lychd_core.stores.sqlite_tx import immediate as sqlite_immediate

SQLITE_HEADER = b"SQLite format 3\x00"


def typed_error(exc: sqlite3.Error, path: Path, action: str) -> VaultStoreError | VaultIntegrityError:
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc):
        return VaultLockedError(f"{path} is locked by another writer (while trying to {action}); nothing was written")
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in str(exc) or "not a database" in str(exc):
        return VaultIntegrityError(f"{path} is corrupt ({exc}) while trying to {action}")
    return VaultStoreError(f"{path}: cannot {action}: {exc}")


@contextmanager
def sqlite_errors(path: Path, action: str) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise typed_error(exc, path, action) from exc


def connect(path: Path, *, busy_timeout_ms: int, private: bool) -> sqlite3.Connection:
    """Open ``path`` (WAL, ``synchronous=FULL``, ``secure_delete``, ``journal_size_limit`` 0), refusing a
    non-SQLite file."""
    if path.is_dir():
        raise VaultStoreError(f"{path} is a directory; name a file")
    if path.exists() and path.stat().st_size > 0:
        with path.open("rb") as handle:
            if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                raise VaultIntegrityError(f"{path} is not an SQLite database (bad header); it was left untouched")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700 if private else 0o777)
    if private and not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    with sqlite_errors(path, "open"):
        conn = sqlite3.connect(path, timeout=busy_timeout_ms / 1000, isolation_level=None)
    try:
        with sqlite_errors(path, "configure"):
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA secure_delete = ON")
            # a reset WAL is cut back to nothing, so stale frames do not linger past the next checkpoint
            conn.execute("PRAGMA journal_size_limit = 0")
    except BaseException:
        conn.close()
        raise
    return conn


def immediate(conn: sqlite3.Connection, path: Path, action: str) -> AbstractContextManager[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction, its SQLite errors typed as vault errors."""
    return sqlite_immediate(conn, path, action, sqlite_errors)


def checkpoint(conn: sqlite3.Connection, path: Path) -> None:
    """Fold the WAL into the database and truncate it (old page images leave the WAL file)."""
    with sqlite_errors(path, "checkpoint"):
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
