"""The encrypted local vault: leases, their per-lease keys, claims, rehydration and erasure.

Every state change is one ``BEGIN IMMEDIATE`` transaction (a compare-and-set on the
stored state), committed with ``synchronous=FULL``. Each terminal state destroys the
lease's key material: the wrapped DEK and map ciphertext are nulled (and zeroed by
``secure_delete``) in the same transaction, then the erasure secret is deleted from the
key store. A crash between the two is finished by the next open or purge.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from lychd_core.errors import (
    ClaimConflict,
    DurabilityRefused,
    LeaseExpired,
    LeaseUnrecoverable,
    VaultStoreError,
)
from lychd_core.privacy.vault.aead import NonceSource, open_into, random_nonce
from lychd_core.privacy.vault.buffers import LockedBuffer
from lychd_core.privacy.vault.claims import claim_digest, is_repeat_claim, return_digest
from lychd_core.privacy.vault.hardening import HardeningReport, harden_process
from lychd_core.privacy.vault.issue import BoundCut, IssuedTokens, request_for_cut
from lychd_core.privacy.vault.keystore import KeyStore
from lychd_core.privacy.vault.lease import (
    TERMINAL,
    ClaimRequest,
    LeaseGrant,
    LeaseRequest,
    LeaseState,
    LeaseTerms,
    LeaseView,
    PseudonymMapLease,
    SensitiveValue,
    durable_expiry,
)
from lychd_core.privacy.vault.minting import Build, insert_row, mint_row, unwrap_key
from lychd_core.privacy.vault.rows import STATEMENTS, LeaseRow, load_row, mac_key, seal_aad
from lychd_core.privacy.vault.sqlite import checkpoint, connect, create_database, immediate, probe, sqlite_errors
from lychd_core.privacy.vault.tokens import map_size

__all__ = ["ORPHAN_GRACE", "Clock", "Vault", "claim_digest", "return_digest", "unwrap_key", "wall_clock"]

Clock = Callable[[], int]
ORPHAN_GRACE = 600  # seconds an erasure secret may wait for its lease row (a concurrent create)


def _build(conn: sqlite3.Connection) -> None:
    for statement in STATEMENTS:
        conn.execute(statement)


def wall_clock() -> int:
    return int(time.time())


class Vault:
    """Pseudonym-map leases in SQLite, keys in a separate key store. Use :meth:`open`."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        keys: KeyStore,
        *,
        clock: Clock,
        hardening: HardeningReport,
        nonce_source: NonceSource,
        truncate_wal_on_erasure: bool = False,
    ) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self.keys = keys
        self.clock = clock
        self.hardening = hardening
        self._nonce = nonce_source
        self.truncate_wal_on_erasure = truncate_wal_on_erasure

    @classmethod
    def open(
        cls,
        path: str | Path,
        keys_path: str | Path,
        *,
        clock: Clock = wall_clock,
        hardening: HardeningReport | None = None,
        nonce_source: NonceSource = random_nonce,
        busy_timeout_ms: int = 30_000,
        truncate_wal_on_erasure: bool = False,
    ) -> Vault:
        """Open the vault and its key store, prove hardening, finish interrupted erasures.

        Both are created only when the vault does not exist yet. An existing vault whose key
        store is missing, or a key store others may read or write, is refused and never
        recreated (see :meth:`KeyStore.open`); so is an empty (0-byte) vault file.

        ``truncate_wal_on_erasure`` checkpoints and truncates the database's WAL after every
        erasure, so no stale frame keeps an erased lease's wrapped DEK until the next purge.
        """
        path, keys_path = Path(path), Path(keys_path)
        if path.resolve().parent == keys_path.resolve().parent:
            raise VaultStoreError(f"the key store {keys_path} must live apart from the vault database {path}")
        report = harden_process() if hardening is None else hardening
        exists = probe(path, "vault")  # a 0-byte or foreign file is refused before any key is made
        keys = KeyStore.open(keys_path, now=clock(), create=not exists, busy_timeout_ms=busy_timeout_ms)
        try:
            if not exists:
                create_database(path, _build)
            conn = connect(path, busy_timeout_ms=busy_timeout_ms)
        except BaseException:
            keys.close()
            raise
        vault = cls(
            conn, path, keys, clock=clock, hardening=report, nonce_source=nonce_source,
            truncate_wal_on_erasure=truncate_wal_on_erasure,
        )  # fmt: skip
        try:
            with immediate(conn, path, "prepare the vault") as c:
                for statement in STATEMENTS:
                    c.execute(statement)
            vault.finish_erasures()
        except BaseException:
            vault.close()
            raise
        return vault

    @property
    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise VaultStoreError(f"vault {self.path} is closed")
        return self._conn

    def close(self) -> None:
        with contextlib.suppress(VaultStoreError):
            self.keys.release_pool()
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # stale wrapped-DEK frames leave the WAL
            self._conn.close()
            self._conn = None
        self.keys.close()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading ------------------------------------------------------------------

    def _row(self, lease_id: str) -> LeaseRow:
        with sqlite_errors(self.path, "read a lease"):
            return load_row(self._connection, lease_id, self.keys.kek)

    def get(self, lease_id: str) -> LeaseView:
        """The lease and its state (authenticated); never its map or keys."""
        return self._view(self._row(lease_id))

    def _view(self, row: LeaseRow) -> LeaseView:
        return LeaseView(
            lease=row.lease,
            state=row.state,
            claim=row.claim,
            changed_at=row.changed_at,
            key_present=row.sealed and self.keys.secret(row.lease.lease_id) is not None,
        )

    def counts(self) -> dict[str, int]:
        """Leases by state (every state listed)."""
        with sqlite_errors(self.path, "count leases"):
            found = dict(self._connection.execute("SELECT state, COUNT(*) FROM leases GROUP BY state").fetchall())
        return {state.value: int(found.get(state.value, 0)) for state in LeaseState}

    # --- creating -----------------------------------------------------------------

    def create_lease(
        self,
        request: LeaseRequest,
        values: Sequence[SensitiveValue],
        build_candidate: Callable[[tuple[str, ...]], str],
    ) -> LeaseGrant:
        """Issue one token per value, build the candidate from them, and seal the map.

        Refuses (nothing written) when hardening is unproven or the lease cannot outlive
        the remote deadline plus return window within the cut's and the source's expiry.
        """
        self.hardening.require()
        durable_expiry(request, self.clock())
        return self._issue(values, lambda issued: (request, build_candidate(issued.tokens)))

    def create_cut_lease(
        self, terms: LeaseTerms, values: Sequence[SensitiveValue], bind: Callable[[IssuedTokens], BoundCut]
    ) -> LeaseGrant:
        """Issue tokens for a reversible cut that ``bind`` prepares, verifies and seals around them,
        then lease that cut (see :func:`request_for_cut`). On any refusal nothing is written and
        the caller must withdraw the seal."""
        self.hardening.require()
        now = self.clock()
        if terms.remote_deadline_at <= now:
            raise DurabilityRefused(f"the remote deadline {terms.remote_deadline_at} is not after now ({now})")

        def build(issued: IssuedTokens) -> tuple[LeaseRequest, str]:
            bound = bind(issued)
            return request_for_cut(terms, issued, bound, now), bound.candidate

        return self._issue(values, build)

    def _issue(self, values: Sequence[SensitiveValue], build: Build) -> LeaseGrant:
        now = self.clock()
        map_size(values)  # refuse an oversized map before reserving anything
        epoch = self.keys.current_epoch()
        lease_id, secret = self.keys.take(epoch, now)
        try:
            lease, candidate = self._seal_and_insert(values, build, lease_id, secret, epoch, now)
        except BaseException:
            self.keys.destroy([lease_id])  # nothing of a refused lease survives, not even its secret
            raise
        return LeaseGrant(
            lease_id=lease_id,
            namespace=lease.namespace,
            candidate=candidate,
            candidate_digest=lease.candidate_digest,
            expires_at=lease.expires_at,
        )

    def _seal_and_insert(
        self, values: Sequence[SensitiveValue], build: Build, lease_id: str, secret: bytes, epoch: int, now: int
    ) -> tuple[PseudonymMapLease, str]:
        """Mint tokens, build the candidate, seal map and DEK, and insert the row (one transaction)."""
        kek = self.keys.kek(epoch)
        row, candidate = mint_row(
            values, build, kek=kek, nonce=self._nonce, lease_id=lease_id, secret=secret, epoch=epoch, now=now
        )
        insert_row(self._connection, self.path, row, kek)
        return row.lease, candidate

    @property
    def pooled_ids(self) -> frozenset[str]:
        """Lease ids reserved by this vault whose erasure secrets exist but are not used yet."""
        return self.keys.pooled_ids

    # --- transitions --------------------------------------------------------------

    def _write(
        self, conn: sqlite3.Connection, row: LeaseRow, state: LeaseState, claim: ClaimRequest | None
    ) -> LeaseRow:
        erase = state in TERMINAL
        new = LeaseRow(
            row.lease,
            state,
            claim,
            self.clock(),
            None if erase else row.wrap_nonce,
            None if erase else row.wrapped_dek,
            None if erase else row.map_nonce,
            None if erase else row.map_ciphertext,
        )
        new.replace(conn, mac_key(self.keys.kek(row.lease.key_epoch)), row.state)
        return new

    def _destroy(self, lease_ids: list[str]) -> None:
        """Second half of erasure: delete the erasure secrets (the key store checkpoints its WAL at once).

        Stale vault WAL frames may hold the wrapped DEK, undecryptable from here on, until the
        next checkpoint (purge, close, SQLite's own, or here with ``truncate_wal_on_erasure``).
        """
        if lease_ids:
            self.keys.destroy(lease_ids)
            if self.truncate_wal_on_erasure:
                checkpoint(self._connection, self.path)

    def _expire_if_due(self, conn: sqlite3.Connection, row: LeaseRow) -> LeaseRow | None:
        if not row.state.terminal and self.clock() >= row.lease.expires_at:
            return self._write(conn, row, LeaseState.EXPIRED, row.claim)
        return None

    def claim(self, lease_id: str, claim: ClaimRequest) -> LeaseView:
        """Idempotent compare-and-set ACTIVE → CLAIMED; the same claim again returns the same view.

        Refused (the lease stays as it is) in a process whose hardening is unproven: it could
        not rehydrate. The first claim is recorded in the key store before the vault's row, so
        a vault copy restored from before it still refuses every other claim.
        """
        self.hardening.require()
        with immediate(self._connection, self.path, "claim a lease") as conn:
            row = load_row(conn, lease_id, self.keys.kek)
            expired = self._expire_if_due(conn, row)
            if expired is None:
                row = self._claim_row(conn, row, claim)
        if expired is not None:
            self._destroy([lease_id])
            raise LeaseExpired(f"lease {lease_id} expired at {row.lease.expires_at}; its key was destroyed")
        return self._view(row)

    def _claim_row(self, conn: sqlite3.Connection, row: LeaseRow, claim: ClaimRequest) -> LeaseRow:
        lease_id = row.lease.lease_id
        repeat = is_repeat_claim(row, claim)
        if not repeat and self.keys.secret(lease_id) is None:
            raise LeaseUnrecoverable(f"lease {lease_id}: its key was destroyed; it cannot be claimed")
        self.check_claim_record(lease_id, claim)
        return row if repeat else self._write(conn, row, LeaseState.CLAIMED, claim)

    def check_claim_record(self, lease_id: str, claim: ClaimRequest) -> None:
        """Record ``claim`` in the key store, or refuse it when another claim is on record there."""
        if self.keys.record_claim(lease_id, claim_digest(claim), now=self.clock()) != claim_digest(claim):
            raise ClaimConflict(
                f"lease {lease_id} was already claimed by another principal, run, station or return (the key "
                "store records it; this vault database may be a copy restored from before that claim)"
            )

    def revoke(self, lease_id: str) -> LeaseView:
        """End a non-terminal lease as REVOKED and destroy its key (a terminal lease is left as is)."""
        with immediate(self._connection, self.path, "revoke a lease") as conn:
            row = load_row(conn, lease_id, self.keys.kek)
            if not row.state.terminal:
                row = self._write(conn, row, LeaseState.REVOKED, row.claim)
        self._destroy([lease_id])
        return self._view(row)

    def purge(self) -> dict[str, int]:
        """Expire every due lease, finish interrupted erasures, retire unused key epochs."""
        now = self.clock()
        expired = []
        with immediate(self._connection, self.path, "expire due leases") as conn:
            due = conn.execute(
                "SELECT lease_id FROM leases WHERE state IN ('ACTIVE', 'CLAIMED') AND expires_at <= ?", (now,)
            ).fetchall()
            for (lease_id,) in due:
                self._write(conn, load_row(conn, lease_id, self.keys.kek), LeaseState.EXPIRED, None)
                expired.append(lease_id)
        erased = self.finish_erasures()
        checkpoint(self._connection, self.path)
        return {"expired": len(expired), "erased": erased, "retired_epochs": self.keys.retire_unused_epochs()}

    def finish_erasures(self) -> int:
        """Destroy erasure secrets of terminal leases, and orphans older than the grace period."""
        self.keys.drop_stale(self.keys.current_epoch(), self.clock())
        live = self.keys.lease_ids() - self.pooled_ids
        if not live:
            return 0
        with sqlite_errors(self.path, "list leases"):
            states = dict(self._connection.execute("SELECT lease_id, state FROM leases").fetchall())
        ended = {state.value for state in TERMINAL}
        doomed = [lease_id for lease_id in live if states.get(lease_id) in ended]
        orphans = [lease_id for lease_id in live if lease_id not in states]
        doomed += self.keys.older_than(orphans, self.clock() - ORPHAN_GRACE)
        self._destroy(doomed)
        return len(doomed)

    # --- key material for the rehydration port ---------------------------------------

    def _unwrap_into(self, row: LeaseRow, dek: LockedBuffer) -> None:
        secret = self.keys.secret(row.lease.lease_id)
        if secret is None or not row.sealed:
            raise LeaseUnrecoverable(
                f"lease {row.lease.lease_id}: its key was destroyed or never restored with this database; "
                "the map cannot be decrypted and will not be rebuilt from history"
            )
        key = unwrap_key(self.keys.kek(row.lease.key_epoch), secret, row.lease.lease_id)
        assert row.wrap_nonce is not None and row.wrapped_dek is not None
        open_into(key, row.wrap_nonce, row.wrapped_dek, seal_aad("dek", row.lease), dek.view)
