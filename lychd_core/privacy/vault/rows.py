"""The vault database: schema, one lease row, its keyed MAC, and the associated data of each seal."""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError

from lychd_core.digests import canonical_json
from lychd_core.errors import LeaseNotFound, VaultIntegrityError
from lychd_core.privacy.vault.aead import derive_key
from lychd_core.privacy.vault.lease import ClaimRequest, LeaseState, PseudonymMapLease

SCHEMA_VERSION = 1
STATEMENTS = (
    "CREATE TABLE IF NOT EXISTS leases ("
    " lease_id TEXT PRIMARY KEY, body TEXT NOT NULL, state TEXT NOT NULL, claim TEXT,"
    " changed_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,"
    " wrap_nonce BLOB, wrapped_dek BLOB, map_nonce BLOB, map_ciphertext BLOB, mac BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS leases_by_state ON leases (state, expires_at)",
    "CREATE TABLE IF NOT EXISTS nonces (nonce BLOB PRIMARY KEY) WITHOUT ROWID",
)


def mac_key(kek: bytes) -> bytes:
    return derive_key(kek, b"", b"lychd-vault/row-mac@1")


def seal_aad(use: str, lease: PseudonymMapLease) -> bytes:
    """Associated data binding a sealed value to its use, lease, namespace, epoch and version."""
    return canonical_json(
        {"use": use, "lease_id": lease.lease_id, "namespace": lease.namespace, "epoch": lease.key_epoch, "v": 1}
    )


def _h(blob: bytes | None) -> str:
    return "" if blob is None else hashlib.sha256(blob).hexdigest()


@dataclass(frozen=True, slots=True)
class LeaseRow:
    lease: PseudonymMapLease
    state: LeaseState
    claim: ClaimRequest | None
    changed_at: int
    wrap_nonce: bytes | None
    wrapped_dek: bytes | None
    map_nonce: bytes | None
    map_ciphertext: bytes | None

    @property
    def sealed(self) -> bool:
        return None not in (self.wrap_nonce, self.wrapped_dek, self.map_nonce, self.map_ciphertext)

    def mac(self, key: bytes) -> bytes:
        fields = [
            self.lease.lease_id,
            self.lease.body_json(),
            self.state.value,
            None if self.claim is None else self.claim.model_dump(mode="json"),
            self.changed_at,
            [_h(self.wrap_nonce), _h(self.wrapped_dek), _h(self.map_nonce), _h(self.map_ciphertext)],
        ]
        return hmac.new(key, canonical_json(fields), hashlib.sha256).digest()

    def insert(self, conn: sqlite3.Connection, key: bytes) -> None:
        conn.execute(
            "INSERT INTO leases VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                self.lease.lease_id,
                canonical_json(self.lease.body_json()).decode("utf-8"),
                self.state.value,
                None if self.claim is None else canonical_json(self.claim.model_dump(mode="json")).decode("utf-8"),
                self.changed_at,
                self.lease.expires_at,
                self.wrap_nonce,
                self.wrapped_dek,
                self.map_nonce,
                self.map_ciphertext,
                self.mac(key),
            ),
        )

    def replace(self, conn: sqlite3.Connection, key: bytes, expected: LeaseState) -> None:
        """Compare-and-set: write this row only if the stored state is still ``expected``."""
        claim = None if self.claim is None else canonical_json(self.claim.model_dump(mode="json")).decode("utf-8")
        changed = conn.execute(
            "UPDATE leases SET state = ?, claim = ?, changed_at = ?, wrap_nonce = ?, wrapped_dek = ?,"
            " map_nonce = ?, map_ciphertext = ?, mac = ? WHERE lease_id = ? AND state = ?",
            (
                self.state.value,
                claim,
                self.changed_at,
                self.wrap_nonce,
                self.wrapped_dek,
                self.map_nonce,
                self.map_ciphertext,
                self.mac(key),
                self.lease.lease_id,
                expected.value,
            ),
        ).rowcount
        if changed != 1:
            raise VaultIntegrityError(f"lease {self.lease.lease_id} changed state under a held write lock")


def load_row(conn: sqlite3.Connection, lease_id: str, kek_of: Callable[[int], bytes]) -> LeaseRow:
    """Read and authenticate one lease row; ``kek_of(epoch)`` returns that epoch's KEK."""
    row = conn.execute(
        "SELECT body, state, claim, changed_at, expires_at, wrap_nonce, wrapped_dek, map_nonce, map_ciphertext, mac"
        " FROM leases WHERE lease_id = ?",
        (lease_id,),
    ).fetchone()
    if row is None:
        raise LeaseNotFound(f"no lease {lease_id!r} in this vault")
    try:
        lease = PseudonymMapLease.model_validate_json(row[0])
        parsed = LeaseRow(
            lease=lease,
            state=LeaseState(row[1]),
            claim=None if row[2] is None else ClaimRequest.model_validate_json(row[2]),
            changed_at=int(row[3]),
            wrap_nonce=row[5],
            wrapped_dek=row[6],
            map_nonce=row[7],
            map_ciphertext=row[8],
        )
    except (ValidationError, ValueError, TypeError):
        raise VaultIntegrityError(f"lease {lease_id!r}: stored row is malformed; it is not served") from None
    if lease.lease_id != lease_id or lease.expires_at != row[4]:
        raise VaultIntegrityError(f"lease {lease_id!r}: stored row does not match its key columns")
    expected = parsed.mac(mac_key(kek_of(lease.key_epoch)))
    if not isinstance(row[9], bytes) or not hmac.compare_digest(expected, row[9]):
        raise VaultIntegrityError(f"lease {lease_id!r}: stored row failed its keyed MAC (edited outside the vault)")
    return parsed
