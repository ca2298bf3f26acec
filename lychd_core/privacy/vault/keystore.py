"""Key-encryption keys and per-lease erasure secrets, held apart from the vault database.

The key store is its own SQLite file in its own directory (mode 0700, with a
``CACHEDIR.TAG`` so tar, borg and restic ``--exclude-caches`` skip it). A lease's DEK is
wrapped under ``HKDF(KEK[epoch], salt=erasure secret, info=lease id)``; destroying the
erasure secret makes every copy of the wrapped DEK, including one in an old backup of
the vault database, impossible to unwrap.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import stat
from pathlib import Path

from lychd_core.errors import (
    KeyStoreError,
    KeyStoreExposed,
    KeyStoreMissing,
    LeaseUnrecoverable,
    VaultStoreError,
)
from lychd_core.privacy.vault.aead import KEY_BYTES
from lychd_core.privacy.vault.sqlite import checkpoint, connect, create_database, immediate, probe, sqlite_errors

CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# lychd vault keys: never back this directory up (restoring it would defeat erasure).\n"
)
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS kek (epoch INTEGER PRIMARY KEY, key BLOB NOT NULL, created_at INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS lease_secrets ("
    " lease_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL REFERENCES kek(epoch), secret BLOB NOT NULL,"
    " created_at INTEGER NOT NULL)",
    # the first claim of each live lease, kept apart from the vault: a vault copy restored from before
    # the claim cannot hand the lease to a second principal (deleted with the lease's erasure secret)
    "CREATE TABLE IF NOT EXISTS claims (lease_id TEXT PRIMARY KEY, claim TEXT NOT NULL, created_at INTEGER NOT NULL)",
)


POOL_SIZE = 16  # lease ids whose erasure secrets are made durable in one key-store commit
POOL_MAX_AGE = 300  # a reserved id older than this is destroyed, well before others may call it an orphan


def _build(conn: sqlite3.Connection, now: int) -> None:
    for statement in _SCHEMA:
        conn.execute(statement)
    conn.execute("INSERT INTO kek VALUES (1, ?, ?)", (os.urandom(KEY_BYTES), now))


def check_private(path: Path) -> None:
    """The checks the projection cache applies to ``cache.key``, plus ownership: a regular file
    (no symlink), owned by this user, with no group or other permission bits, in a folder owned
    by this user that no one else may write."""
    folder = path.parent
    info = os.stat(folder)
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise KeyStoreExposed(
            f"the key store's folder {folder} is owned by uid {info.st_uid} with mode {stat.S_IMODE(info.st_mode):o}; "
            f"it must be owned by this user (uid {os.geteuid()}) and writable by no one else (chmod 700 {folder})"
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        why = exc.strerror or exc
        raise KeyStoreError(f"the key store {path} cannot be opened ({why}); a symlink is refused") from None
    try:
        info = os.fstat(fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(info.st_mode):
        raise KeyStoreError(f"the key store {path} is not a regular file; it was left untouched")
    if info.st_uid != os.geteuid():
        raise KeyStoreExposed(
            f"the key store {path} is owned by uid {info.st_uid}, not this user (uid {os.geteuid()}); it is not used"
        )
    if info.st_mode & 0o077:
        raise KeyStoreExposed(
            f"the key store {path} is readable or writable by others (mode {stat.S_IMODE(info.st_mode):o}); "
            f"anyone who read it can unwrap every lease. Run chmod 600 {path} (and consider the keys exposed)"
        )


class KeyStore:
    """KEKs by epoch and per-lease erasure secrets. Use :meth:`open`."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self._pool: list[tuple[str, int, int]] = []  # (lease id, key epoch, reserved at), secret durable

    @property
    def pooled_ids(self) -> frozenset[str]:
        return frozenset(lease_id for lease_id, _, _ in self._pool)

    def take(self, epoch: int, now: int) -> tuple[str, bytes]:
        """A fresh lease id whose erasure secret is already durable (reserved POOL_SIZE at a time)."""
        self.drop_stale(epoch, now)
        while True:
            if not self._pool:
                ids = ["lease_" + secrets.token_hex(16) for _ in range(POOL_SIZE)]
                self.add_secrets(ids, epoch, now=now)
                self._pool = [(lease_id, epoch, now) for lease_id in ids]
            lease_id, _, _ = self._pool.pop(0)
            secret = self.secret(lease_id)
            if secret is not None:  # another process may have purged it as an orphan: take the next
                return lease_id, secret

    def drop_stale(self, epoch: int, now: int) -> None:
        """Destroy reservations of another epoch or older than POOL_MAX_AGE."""
        fresh = [entry for entry in self._pool if entry[1] == epoch and now - entry[2] < POOL_MAX_AGE]
        stale = [entry[0] for entry in self._pool if entry not in fresh]
        self._pool = fresh
        if stale:
            self.destroy(stale)

    def release_pool(self) -> None:
        """Destroy every unused reservation (on close)."""
        if self._conn is not None and self._pool:
            self.destroy([lease_id for lease_id, _, _ in self._pool])
        self._pool = []

    @classmethod
    def open(cls, path: str | Path, *, now: int, create: bool = True, busy_timeout_ms: int = 30_000) -> KeyStore:
        """Open the key store, creating it only when ``create`` (a vault that does not exist yet).

        Refused, and left untouched: a missing key store when not ``create``, an empty or
        non-SQLite file, a symlink or non-regular file, one readable or writable by others,
        one owned by another user, or a folder others may write (see :func:`check_private`).
        """
        path = Path(path)
        if not probe(path, "key store"):
            if not create:
                raise KeyStoreMissing(
                    f"the key store {path} is missing but its vault exists; it is never recreated, because a new key "
                    "would make every lease unreadable. Restore the key store, or remove the vault database too "
                    "to start over (its leases are then lost)"
                )
            create_database(path, lambda conn: _build(conn, now))
        check_private(path)
        tag = path.parent / "CACHEDIR.TAG"
        if not tag.exists():
            tag.write_text(CACHEDIR_TAG, encoding="ascii")
        conn = connect(path, busy_timeout_ms=busy_timeout_ms)
        store = cls(conn, path)
        try:
            with immediate(conn, path, "prepare the key store"):
                for statement in _SCHEMA:
                    conn.execute(statement)
                if conn.execute("SELECT 1 FROM kek LIMIT 1").fetchone() is None:
                    raise KeyStoreError(f"the key store {path} holds no key-encryption key; it was left untouched")
        except BaseException:
            conn.close()
            raise
        return store

    @property
    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise VaultStoreError(f"key store {self.path} is closed")
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def current_epoch(self) -> int:
        with sqlite_errors(self.path, "read the key epoch"):
            return int(self._connection.execute("SELECT MAX(epoch) FROM kek").fetchone()[0])

    def kek(self, epoch: int) -> bytes:
        with sqlite_errors(self.path, "read a key-encryption key"):
            row = self._connection.execute("SELECT key FROM kek WHERE epoch = ?", (epoch,)).fetchone()
        if row is None or len(row[0]) != KEY_BYTES:
            raise LeaseUnrecoverable(f"key epoch {epoch} is not in the key store {self.path}")
        return bytes(row[0])

    def rotate(self, *, now: int) -> int:
        """Start a new key epoch for new leases; older epochs stay until their leases end."""
        with immediate(self._connection, self.path, "rotate the key-encryption key") as conn:
            epoch = int(conn.execute("SELECT MAX(epoch) FROM kek").fetchone()[0]) + 1
            conn.execute("INSERT INTO kek VALUES (?, ?, ?)", (epoch, os.urandom(KEY_BYTES), now))
        return epoch

    def add_secret(self, lease_id: str, epoch: int, *, now: int) -> bytes:
        """A fresh erasure secret for ``lease_id``, durable before the lease is written."""
        self.add_secrets([lease_id], epoch, now=now)
        secret = self.secret(lease_id)
        assert secret is not None
        return secret

    def add_secrets(self, lease_ids: list[str], epoch: int, *, now: int) -> None:
        """Fresh erasure secrets for several future leases in one durable commit."""
        rows = [(lease_id, epoch, os.urandom(KEY_BYTES), now) for lease_id in lease_ids]
        with immediate(self._connection, self.path, "store erasure secrets") as conn:
            conn.executemany("INSERT INTO lease_secrets VALUES (?, ?, ?, ?)", rows)

    def older_than(self, lease_ids: list[str], cutoff: int) -> list[str]:
        """Those of ``lease_ids`` whose secret was stored before ``cutoff``."""
        with sqlite_errors(self.path, "read erasure secret ages"):
            rows = self._connection.execute("SELECT lease_id, created_at FROM lease_secrets").fetchall()
        wanted = set(lease_ids)
        return sorted(lease_id for lease_id, created in rows if lease_id in wanted and created < cutoff)

    def secret(self, lease_id: str) -> bytes | None:
        with sqlite_errors(self.path, "read an erasure secret"):
            row = self._connection.execute(
                "SELECT secret FROM lease_secrets WHERE lease_id = ?", (lease_id,)
            ).fetchone()
        return None if row is None else bytes(row[0])

    def record_claim(self, lease_id: str, claim_digest: str, *, now: int) -> str:
        """Record the first claim of ``lease_id`` (durably, before the vault's row says CLAIMED) and
        return the claim on record: this one, or an earlier one that must win."""
        with immediate(self._connection, self.path, "record a claim") as conn:
            conn.execute("INSERT OR IGNORE INTO claims VALUES (?, ?, ?)", (lease_id, claim_digest, now))
            return str(conn.execute("SELECT claim FROM claims WHERE lease_id = ?", (lease_id,)).fetchone()[0])

    def claim_of(self, lease_id: str) -> str | None:
        """The digest of the claim on record for ``lease_id``, or None."""
        with sqlite_errors(self.path, "read a claim"):
            row = self._connection.execute("SELECT claim FROM claims WHERE lease_id = ?", (lease_id,)).fetchone()
        return None if row is None else str(row[0])

    def lease_ids(self) -> set[str]:
        with sqlite_errors(self.path, "list erasure secrets"):
            return {row[0] for row in self._connection.execute("SELECT lease_id FROM lease_secrets")}

    def destroy(self, lease_ids: list[str]) -> int:
        """Delete these erasure secrets (zeroed in place by ``secure_delete``); how many existed.

        The delete commits without its own fsync; the TRUNCATE checkpoint that follows syncs
        the WAL, folds it into the database, syncs that and empties the WAL, so old frames
        holding the secret are gone when this returns. A crash in between leaves the secret;
        the next open or purge deletes it again (its lease is already terminal).
        """
        if not lease_ids:
            return 0
        conn = self._connection
        with sqlite_errors(self.path, "relax the commit sync"):
            conn.execute("PRAGMA synchronous = NORMAL")
        try:
            with immediate(conn, self.path, "destroy erasure secrets"):
                marks = ",".join("?" * len(lease_ids))
                removed = conn.execute(f"DELETE FROM lease_secrets WHERE lease_id IN ({marks})", lease_ids).rowcount
                conn.execute(f"DELETE FROM claims WHERE lease_id IN ({marks})", lease_ids)
            checkpoint(conn, self.path)
        finally:
            with sqlite_errors(self.path, "restore the commit sync"):
                conn.execute("PRAGMA synchronous = FULL")
        return int(removed)

    def retire_unused_epochs(self) -> int:
        """Destroy KEKs older than the current epoch that no live lease uses."""
        with immediate(self._connection, self.path, "retire key epochs") as conn:
            current = int(conn.execute("SELECT MAX(epoch) FROM kek").fetchone()[0])
            removed = conn.execute(
                "DELETE FROM kek WHERE epoch < ? AND epoch NOT IN (SELECT epoch FROM lease_secrets)", (current,)
            ).rowcount
        return int(removed)
