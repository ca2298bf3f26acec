"""SQLite plumbing shared by the vault and its key store: durable settings, typed errors, one write."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from lychd_core.privacy.vault.errors import VaultIntegrityError, VaultLockedError, VaultStoreError
from lychd_core.state.sqlite_tx import immediate as sqlite_immediate

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


def probe(path: Path, what: str) -> bool:
    """Whether ``path`` holds an SQLite database (False: nothing there yet).

    A directory, an empty (0-byte) file and a file without the SQLite header are refused and
    left untouched: an empty file is not an empty vault (a new database is never 0 bytes,
    see :func:`create_database`), so something truncated it or made it.
    """
    if path.is_dir():
        raise VaultStoreError(f"{what} {path} is a directory; name a file")
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise VaultStoreError(f"{what} {path} cannot be examined: {exc.strerror or exc}") from None
    if size == 0:
        raise VaultIntegrityError(
            f"{what} {path} is an empty file (0 bytes), not a database; it was left untouched. "
            "Restore it from where it came from, or delete it only if it never held leases"
        )
    with path.open("rb") as handle:
        if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise VaultIntegrityError(f"{path} is not an SQLite database (bad header); it was left untouched")
    return True


def create_database(path: Path, build: Callable[[sqlite3.Connection], object]) -> None:
    """A new database at ``path``, whole or not at all: built at a scratch name (mode 0600) by ``build``
    in one transaction, then linked into place. If another process made one first, theirs is kept."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    scratch = path.with_name(f".{path.name}.creating-{os.getpid()}-{time.monotonic_ns()}")
    try:
        os.close(os.open(scratch, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        with sqlite_errors(path, "create"):
            conn = sqlite3.connect(scratch, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = FULL")
                conn.execute("BEGIN IMMEDIATE")
                build(conn)
                conn.execute("COMMIT")
            finally:
                conn.close()  # the last connection folds the WAL into the file and removes it
        with contextlib.suppress(FileExistsError):
            os.link(scratch, path)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except VaultStoreError:
        raise
    except OSError as exc:
        raise VaultStoreError(f"{path} cannot be created: {exc.strerror or exc}") from None
    finally:
        for leftover in (scratch, Path(f"{scratch}-wal"), Path(f"{scratch}-shm")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def connect(path: Path, *, busy_timeout_ms: int) -> sqlite3.Connection:
    """Open the existing database ``path`` (WAL, ``synchronous=FULL``, ``secure_delete``,
    ``journal_size_limit`` 0); never creates one (see :func:`create_database`)."""
    with sqlite_errors(path, "open"):
        conn = sqlite3.connect(
            path.absolute().as_uri() + "?mode=rw", timeout=busy_timeout_ms / 1000, isolation_level=None, uri=True
        )
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
