"""Opening a test's SQLite file directly, closed on leaving."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def connected(path: str | Path, **options: Any) -> Iterator[sqlite3.Connection]:
    """A connection to ``path`` that commits (or rolls back) and then closes on leaving.

    ``with sqlite3.connect(...)`` only commits: the connection stays open until a garbage
    collection finds it, and closing it then checkpoints the WAL into the file at a random
    moment, so a later check of the file's bytes or of a read-only open depends on timing."""
    conn = sqlite3.connect(path, **options)
    try:
        with conn:
            yield conn
    finally:
        conn.close()
