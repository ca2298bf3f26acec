"""The run record's GMAC: a fresh nonce per signing, bound to the run key, refused on any change."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.projection.record_mac import TAG_PREFIX, record_verifier, sign_record
from lychd_core.state.keys import mac_of_encoded

SECRET = b"s" * 32
DOMAIN = b"lychd-run-record/1"
KEY = b"sha256:" + b"0" * 64


def verifies(stored: object, record: bytes, pieces: int = 3, secret: bytes = SECRET, key: bytes = KEY) -> bool:
    verifier = record_verifier(secret, DOMAIN, key, stored)
    if verifier is None:
        return False
    feed, verdict = verifier
    step = max(1, len(record) // pieces)
    for start in range(0, len(record), step):
        feed(memoryview(record)[start : start + step])  # the record is fed in views of its chunks
    return verdict()


@settings(max_examples=60)
@given(st.binary(max_size=3000), st.integers(1, 7))
def test_a_signed_record_verifies_however_it_is_fed(record: bytes, pieces: int) -> None:
    assert verifies(sign_record(SECRET, DOMAIN, KEY, record), record, pieces)


@settings(max_examples=60)
@given(st.binary(min_size=1, max_size=500), st.data())
def test_any_changed_byte_or_length_is_refused(record: bytes, data: st.DataObject) -> None:
    stored = sign_record(SECRET, DOMAIN, KEY, record)
    at = data.draw(st.integers(0, len(record) - 1))
    flipped = bytearray(record)
    flipped[at] ^= data.draw(st.integers(1, 255))
    assert not verifies(stored, bytes(flipped))
    assert not verifies(stored, record[:-1]) and not verifies(stored, record + b"\x00")


def test_the_mac_is_bound_to_the_run_key_the_cache_key_and_the_domain() -> None:
    record = b"a record" * 100
    stored = sign_record(SECRET, DOMAIN, KEY, record)
    assert verifies(stored, record)
    assert not verifies(stored, record, key=b"sha256:" + b"1" * 64)
    assert not verifies(stored, record, secret=b"t" * 32)
    other_domain = record_verifier(SECRET, b"lychd-other/1", KEY, stored)
    assert other_domain is not None
    other_domain[0](record)
    assert not other_domain[1]()


def test_every_signing_draws_a_new_nonce() -> None:
    first, second = (sign_record(SECRET, DOMAIN, KEY, b"same") for _ in range(2))
    assert first != second and first.split(":")[1] != second.split(":")[1]
    assert verifies(first, b"same") and verifies(second, b"same")


@pytest.mark.parametrize(
    "stored",
    [
        None,
        b"gmac-aes256:00:00",
        "",
        mac_of_encoded(SECRET, DOMAIN, KEY, b"record"),  # the HMAC form a schema-1 record carried
        TAG_PREFIX + "zz" * 12 + ":" + "00" * 16,  # not hex
        TAG_PREFIX + "00" * 11 + ":" + "00" * 16,  # a short nonce
        TAG_PREFIX + "00" * 12 + ":" + "00" * 15,  # a short tag
        TAG_PREFIX + "00" * 12,  # no tag at all
    ],
)
def test_a_stored_mac_of_another_form_is_no_verifier(stored: object) -> None:
    assert record_verifier(SECRET, DOMAIN, KEY, stored) is None


def test_a_tampered_tag_or_nonce_is_refused() -> None:
    stored = sign_record(SECRET, DOMAIN, KEY, b"record")
    nonce, tag = stored.removeprefix(TAG_PREFIX).split(":")
    other_tag = f"{TAG_PREFIX}{nonce}:{(int(tag, 16) ^ 1):032x}"
    other_nonce = f"{TAG_PREFIX}{(int(nonce, 16) ^ 1):024x}:{tag}"
    assert verifies(stored, b"record")
    assert not verifies(other_tag, b"record") and not verifies(other_nonce, b"record")
