"""Mapping sqlite3 exceptions to typed store errors."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lychd_core.errors import MemoryStoreError
from lychd_core.memory.errors import CorruptStoreError, StoreLockedError


def typed_store_error(exc: sqlite3.Error, path: Path, action: str) -> MemoryStoreError:
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc):
        return StoreLockedError(
            f"memory store {path} is locked by another writer (while trying to {action}); nothing was written. "
            "Retry, or raise the busy timeout"
        )
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or (
        isinstance(exc, sqlite3.DatabaseError) and ("malformed" in str(exc) or "not a database" in str(exc))
    ):
        return CorruptStoreError(f"memory store {path} is corrupt ({exc}) while trying to {action}")
    return MemoryStoreError(f"memory store {path}: cannot {action}: {exc}")


@contextmanager
def store_errors(path: Path, action: str) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise typed_store_error(exc, path, action) from exc
