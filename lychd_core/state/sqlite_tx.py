"""One ``BEGIN IMMEDIATE`` transaction for every SQLite store (memory, projection cache, vault, key store)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

ErrorScope = Callable[[Path, str], AbstractContextManager[None]]
"""Turns ``sqlite3.Error`` raised inside it into the store's typed error for (path, action)."""


def untranslated(path: Path, action: str) -> AbstractContextManager[None]:
    """An :data:`ErrorScope` that lets ``sqlite3.Error`` through (the caller maps it)."""
    return nullcontext()


@contextmanager
def immediate(
    conn: sqlite3.Connection, path: Path, action: str, errors: ErrorScope, *, starting: str | None = None
) -> Iterator[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction: committed whole or rolled back whole.

    Taking the write lock at BEGIN (not at the first write) makes the body a compare-and-set
    across processes. ``starting`` names the lock step in errors (default ``start to <action>``).
    """
    with errors(path, starting or f"start to {action}"):
        conn.execute("BEGIN IMMEDIATE")
    try:
        with errors(path, action):
            yield conn
            conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
