"""Minting a lease: tokens from a fresh DEK, the map sealed under it, the DEK wrapped, the row inserted.

Key material lives only in locked buffers; the wrapped DEK is bound to the lease id and an
erasure secret from the key store, so deleting that secret makes the map unrecoverable.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from lychd_core.digests import text_digest
from lychd_core.errors import NonceReuseError
from lychd_core.privacy.vault.aead import NonceSource, derive_key, seal
from lychd_core.privacy.vault.buffers import LockedBuffer, fill_random
from lychd_core.privacy.vault.issue import IssuedTokens
from lychd_core.privacy.vault.lease import LeaseRequest, LeaseState, PseudonymMapLease, SensitiveValue
from lychd_core.privacy.vault.rows import LeaseRow, mac_key, seal_aad
from lychd_core.privacy.vault.sqlite import immediate
from lychd_core.privacy.vault.tokens import make_token, map_size, pack_map, token_key

Build = Callable[[IssuedTokens], tuple[LeaseRequest, str]]


def unwrap_key(kek: bytes, secret: bytes, lease_id: str) -> bytes:
    return derive_key(kek, secret, b"lychd-vault/wrap@1|" + lease_id.encode("utf-8"))


def _namespace(kek: bytes, lease_id: str) -> str:
    """A per-lease token namespace no one can predict or link to another lease without the KEK."""
    namespace_key = derive_key(kek, b"", b"lychd-vault/namespace@1")
    mac = hmac.new(namespace_key, lease_id.encode() + secrets.token_bytes(16), hashlib.sha256).digest()
    return base64.b32encode(mac[:10]).decode("ascii").lower()


def mint_row(
    values: Sequence[SensitiveValue],
    build: Build,
    *,
    kek: bytes,
    nonce: NonceSource,
    lease_id: str,
    secret: bytes,
    epoch: int,
    now: int,
) -> tuple[LeaseRow, str]:
    """Mint tokens, build the candidate from them, seal the map and wrap the DEK: the row to insert."""
    size = map_size(values)
    namespace = _namespace(kek, lease_id)
    with LockedBuffer(32) as dek:
        fill_random(dek)
        issue_key = token_key(dek.view)
        tokens = tuple(make_token(issue_key, namespace, v.category, i) for i, v in enumerate(values))
        request, candidate = build(IssuedTokens(lease_id, namespace, tokens))
        disclosed = [token in candidate for token in tokens]
        lease = PseudonymMapLease(
            lease_id=lease_id,
            request=request,
            namespace=namespace,
            candidate_digest=text_digest(candidate),
            key_epoch=epoch,
            created_at=now,
            expires_at=request.needed_until,
        )
        map_nonce, wrap_nonce = nonce(), nonce()
        with LockedBuffer(size) as plain:
            pack_map(plain.view, values, disclosed)
            map_ciphertext = seal(dek.view, map_nonce, plain.view, seal_aad("map", lease))
        wrapped = seal(unwrap_key(kek, secret, lease_id), wrap_nonce, dek.view, seal_aad("dek", lease))
    return LeaseRow(lease, LeaseState.ACTIVE, None, now, wrap_nonce, wrapped, map_nonce, map_ciphertext), candidate


def insert_row(conn: sqlite3.Connection, path: Path, row: LeaseRow, kek: bytes) -> None:
    """Insert a minted row and record its nonces (one transaction); a repeated nonce refuses it."""
    with immediate(conn, path, "create a lease") as c:
        for used in (row.map_nonce, row.wrap_nonce):
            try:
                c.execute("INSERT INTO nonces VALUES (?)", (used,))
            except sqlite3.IntegrityError:
                raise NonceReuseError("a nonce repeated; the lease was not created") from None
        row.insert(c, mac_key(kek))
