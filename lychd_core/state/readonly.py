"""Opening an SQLite store that this process may read but not write.

A WAL database normally needs its ``-wal`` and ``-shm`` files, which SQLite creates on
open; in a folder the process cannot write they cannot be created, and a plain open
fails ("unable to open database file", "attempt to write a readonly database"). A
store that cannot be written is therefore opened read-only: through its existing WAL
when both companion files are there (so committed but not yet checkpointed writes are
seen), otherwise as ``immutable`` — with no WAL file, every committed write is in the
main file. Nothing is created, and reads are still verified (MACs, digests) as usual.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote


def writable(path: Path) -> bool:
    """Whether this process may write ``path`` and create files beside it (its WAL and index)."""
    folder = path.parent
    effective = os.access in os.supports_effective_ids
    return os.access(path, os.W_OK, effective_ids=effective) and os.access(
        folder, os.W_OK | os.X_OK, effective_ids=effective
    )


def creatable(path: Path) -> bool:
    """Whether ``path`` could be created: its nearest existing ancestor folder is writable."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return os.access(folder, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids)


def connect_read_only(path: Path, timeout: float) -> sqlite3.Connection:
    """A connection that never writes ``path`` or creates anything beside it."""
    with_wal = all(path.with_name(path.name + suffix).exists() for suffix in ("-wal", "-shm"))
    mode = "mode=ro" if with_wal else "mode=ro&immutable=1"
    uri = f"file:{quote(str(path.absolute()))}?{mode}"
    return sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
