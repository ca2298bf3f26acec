"""The run record's MAC: GMAC (AES-256-GCM over the record as authenticated data only).

A run record holds every text and facts value of a run (about 12 MB for 2,000 files)
and is checked whole on every warm run, so its MAC runs over megabytes each time.
HMAC-SHA256 took about 7 ms over 12 MB here; GMAC, computed by OpenSSL with the CPU's
AES and carry-less multiply instructions, about 1 ms. GMAC is NIST SP 800-38D's MAC
mode of GCM, with a 128-bit tag. Its one requirement is a nonce never used twice with
one key: every signing draws a fresh random 96-bit nonce, stored beside the tag (random
nonces are safe for far more than the few records a cache ever writes). The AES key is
derived from the cache key for this use alone, so the HMACs made with the cache key
elsewhere and this MAC never share a key.

The stored form is ``gmac-aes256:<nonce hex>:<tag hex>``; anything else is a miss.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable
from typing import Any

TAG_PREFIX = "gmac-aes256:"
NONCE_BYTES = 12
TAG_BYTES = 16
_KEY_LABEL = b"lychd-run-record-gmac/1"


def _record_key(secret: bytes) -> bytes:
    """The AES-256 key for run records: an HMAC of a fixed label under the cache key (derived per
    use, about a microsecond: no derived key is kept)."""
    return hmac.digest(secret, _KEY_LABEL, "sha256")


def _context(secret: bytes, domain: bytes, run_key: bytes, nonce: bytes, tag: bytes | None) -> Any:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # imported on first use

    mode = modes.GCM(nonce) if tag is None else modes.GCM(nonce, tag)
    cipher = Cipher(algorithms.AES(_record_key(secret)), mode)
    context = cipher.encryptor() if tag is None else cipher.decryptor()
    context.authenticate_additional_data(b"\n".join([domain, run_key, b""]))  # bound as the HMAC bound them
    return context


def sign_record(secret: bytes, domain: bytes, run_key: bytes, record: bytes) -> str:
    """The stored MAC of ``record`` under ``run_key``: a fresh nonce and the GMAC tag."""
    nonce = os.urandom(NONCE_BYTES)
    context = _context(secret, domain, run_key, nonce, None)
    context.authenticate_additional_data(record)
    context.finalize()
    return f"{TAG_PREFIX}{nonce.hex()}:{context.tag.hex()}"


def record_verifier(
    secret: bytes, domain: bytes, run_key: bytes, stored: object
) -> tuple[Callable[[Any], None], Callable[[], bool]] | None:
    """``(feed, verdict)`` for checking a record against ``stored``, or None when ``stored`` is
    not a MAC of this form. Feed every piece of the record in order, then ask the verdict
    (True only when the tag matches, compared inside OpenSSL in constant time)."""
    if not isinstance(stored, str) or not stored.startswith(TAG_PREFIX):
        return None
    nonce_hex, _, tag_hex = stored.removeprefix(TAG_PREFIX).partition(":")
    try:
        nonce, tag = bytes.fromhex(nonce_hex), bytes.fromhex(tag_hex)
    except ValueError:
        return None
    if len(nonce) != NONCE_BYTES or len(tag) != TAG_BYTES:
        return None
    context = _context(secret, domain, run_key, nonce, tag)

    def verdict() -> bool:
        from cryptography.exceptions import InvalidTag

        try:
            context.finalize()
        except InvalidTag:
            return False
        return True

    return context.authenticate_additional_data, verdict
