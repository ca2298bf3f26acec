"""The one AES-256-GCM wrapper the vault uses (tested against the GCM spec vectors).

Every sealed value binds associated data (lease id, namespace, version, purpose of the
bytes), so a ciphertext moved to another row or use fails authentication. Plaintext is
decrypted straight into a caller's mutable (locked) buffer, never into a new bytes object.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from lychd_core.errors import VaultIntegrityError

KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16

Buffer = bytes | bytearray | memoryview
NonceSource = Callable[[], bytes]


def random_nonce() -> bytes:
    """A fresh 96-bit nonce from the OS CSPRNG (the vault also refuses any repeat it has seen)."""
    return os.urandom(NONCE_BYTES)


def seal(key: Buffer, nonce: bytes, plaintext: Buffer, aad: bytes) -> bytes:
    """``ciphertext || tag`` of ``plaintext`` under ``key`` and ``nonce``, binding ``aad``."""
    _check_sizes(key, nonce)
    return AESGCM(key).encrypt(nonce, plaintext, aad)


def open_into(key: Buffer, nonce: bytes, sealed: bytes, aad: bytes, out: memoryview) -> int:
    """Authenticate and decrypt ``sealed`` into ``out``; the plaintext length. Raises on any tamper."""
    _check_sizes(key, nonce)
    length = len(sealed) - TAG_BYTES
    if length < 0:
        raise VaultIntegrityError(f"sealed value is {len(sealed)} bytes, shorter than the {TAG_BYTES}-byte tag")
    if length > len(out):
        raise VaultIntegrityError(f"sealed value needs {length} bytes but the buffer holds {len(out)}")
    try:
        AESGCM(key).decrypt_into(nonce, sealed, aad, out[:length])
    except InvalidTag:
        raise VaultIntegrityError("authentication failed: the ciphertext, nonce or its binding was altered") from None
    return length


def derive_key(master: Buffer, salt: bytes, info: bytes) -> bytes:
    """HKDF-SHA256 of a 32-byte key from ``master`` for one purpose (``info``)."""
    return HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=salt, info=info).derive(bytes(master))


def _check_sizes(key: Buffer, nonce: bytes) -> None:
    if len(key) != KEY_BYTES:
        raise ValueError(f"AES-256-GCM needs a {KEY_BYTES}-byte key, got {len(key)} bytes")
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"AES-GCM nonces here are {NONCE_BYTES} bytes, got {len(nonce)}")
