"""The exact AES-256-GCM wrapper against the GCM spec vectors, and nonce discipline."""

from __future__ import annotations

from itertools import count
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.errors import NonceReuseError, VaultIntegrityError
from lychd_core.privacy.vault.aead import open_into, seal
from tests.support.sqlite_files import connected
from tests.support.vaults import new_lease, open_vault

# McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", test cases 13-16 (AES-256).
K0 = "00" * 32
K1 = "feffe9928665731c6d6a8f9467308308" * 2
IV1 = "cafebabefacedbaddecaf888"
P1 = (
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
)
C1 = (
    "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
    "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
)
VECTORS = [
    ("case 13", K0, "00" * 12, "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"),
    ("case 14", K0, "00" * 12, "00" * 16, "", "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"),
    ("case 15", K1, IV1, P1, "", C1, "b094dac5d93471bdec1a502270e3cc6c"),
    (
        "case 16",
        K1,
        IV1,
        P1[:120],
        "feedfacedeadbeeffeedfacedeadbeefabaddad2",
        C1[:120],
        "76fc6ece0f4e1768cddf8853bb2d551b",
    ),
]


@pytest.mark.parametrize(("name", "key", "iv", "plain", "aad", "cipher", "tag"), VECTORS)
def test_gcm_spec_vectors_through_the_vault_wrapper(
    name: str, key: str, iv: str, plain: str, aad: str, cipher: str, tag: str
) -> None:
    sealed = seal(bytes.fromhex(key), bytes.fromhex(iv), bytes.fromhex(plain), bytes.fromhex(aad))
    assert sealed.hex() == cipher + tag, name
    out = bytearray(len(plain) // 2)
    length = open_into(bytes.fromhex(key), bytes.fromhex(iv), sealed, bytes.fromhex(aad), memoryview(out))
    assert length == len(out) and out.hex() == plain


def test_a_flipped_tag_bit_or_other_aad_is_refused_and_writes_nothing() -> None:
    _, key, iv, plain, aad, cipher, tag = VECTORS[3]
    sealed = bytearray(bytes.fromhex(cipher + tag))
    sealed[-1] ^= 1
    out = bytearray(len(plain) // 2)
    with pytest.raises(VaultIntegrityError, match="authentication failed"):
        open_into(bytes.fromhex(key), bytes.fromhex(iv), bytes(sealed), bytes.fromhex(aad), memoryview(out))
    with pytest.raises(VaultIntegrityError):
        open_into(bytes.fromhex(key), bytes.fromhex(iv), bytes.fromhex(cipher + tag), b"other", memoryview(out))
    with pytest.raises(VaultIntegrityError, match="shorter than"):
        open_into(bytes.fromhex(key), bytes.fromhex(iv), b"short", b"", memoryview(out))


def test_wrong_key_and_nonce_sizes_are_typed() -> None:
    with pytest.raises(ValueError, match="32-byte key"):
        seal(b"k" * 16, b"n" * 12, b"x", b"")
    with pytest.raises(ValueError, match="12 bytes"):
        seal(b"k" * 32, b"n" * 8, b"x", b"")


def _nonces(path: Path) -> list[bytes]:
    with connected(path) as conn:
        return [row[0] for row in conn.execute("SELECT nonce FROM nonces")]


@settings(max_examples=5)
@given(st.integers(min_value=1, max_value=6))
def test_every_seal_uses_a_fresh_nonce(tmp_path_factory: pytest.TempPathFactory, leases: int) -> None:
    tmp = tmp_path_factory.mktemp("nonces")
    with open_vault(tmp) as vault:
        for _ in range(leases):
            new_lease(vault)
        stored = _nonces(vault.path)
        with connected(vault.path) as conn:
            used = [n for row in conn.execute("SELECT wrap_nonce, map_nonce FROM leases") for n in row]
    assert len(stored) == len(set(stored)) == 2 * leases
    assert sorted(used) == sorted(stored)


def test_a_repeated_nonce_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    counter = count()

    def stuck() -> bytes:  # a broken RNG: the third nonce repeats the first
        return (next(counter) % 2).to_bytes(12, "big")

    with open_vault(tmp_path, nonce_source=stuck) as vault:
        new_lease(vault)
        with pytest.raises(NonceReuseError, match="not created"):
            new_lease(vault)
        assert sum(vault.counts().values()) == 1
        assert (
            len(vault.keys.lease_ids() - vault.pooled_ids) == 1
        )  # the refused lease's erasure secret was destroyed too
