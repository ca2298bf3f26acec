"""The projection path's fast canonical encoders give exactly the core's canonical JSON, or refuse as it does."""

from __future__ import annotations

import hmac
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core import digests
from lychd_core.digests import canonical_json, sha256_digest
from lychd_core.families import Projected
from lychd_core.projection import cache_entries
from lychd_core.projection.cache_entries import CacheKey, decode_entry, encode_entry
from lychd_core.projection.outcomes import canonical_facts, checked
from lychd_core.state.keys import mac, mac_of_encoded

SECRET = b"s" * 32
KEY = CacheKey(sha256_digest(b"src"), "structure.typescript", 3, sha256_digest(b"o"), "tree-sitter 0")
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | TEXT
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(TEXT, inner, max_size=5))
NOT_CANONICAL = st.recursive(
    st.floats(allow_nan=False) | st.just(1.0) | st.sets(st.integers(), max_size=2),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.dictionaries(TEXT, inner, min_size=1, max_size=3)
        | st.dictionaries(st.integers(), SCALARS, min_size=1, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_canonical_facts_are_the_core_canonical_json_byte_for_byte(value: Any) -> None:
    assert canonical_facts(value) == canonical_json(value)
    assert cache_entries.canonical_json(value) == json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


@settings(max_examples=150, deadline=None)
@given(NOT_CANONICAL)
def test_what_canonical_json_refuses_canonical_facts_refuses(value: Any) -> None:
    with pytest.raises(TypeError):
        canonical_json(value)
    with pytest.raises(TypeError):
        canonical_facts(value)
    assert "not canonical JSON" in getattr(checked(Projected(text="a", facts=value), 100), "reason", "")


def test_values_orjson_refuses_take_the_exact_route() -> None:
    big = {"n": 2**80, "m": -(2**64)}  # past 64 bits: orjson refuses, the standard library encodes
    assert canonical_facts(big) == canonical_json(big) == b'{"m":-18446744073709551616,"n":1208925819614629174706176}'
    tuples = {"b": (1, 2), "a": [("x",)]}  # a tuple is a JSON array in both
    assert canonical_facts(tuples) == canonical_json(tuples) == b'{"a":[["x"]],"b":[1,2]}'


@pytest.mark.parametrize(
    "payload",
    [
        "{not json",
        '{"schema": 2, "key": [], "text": "a", "line_map": [], "omissions": []}',  # another key
        '{"schema": 2, "key": %s, "text": "a", "line_map": [], "omissions": [1180591620717411303424]}',  # 2**70
        '{"schema": 2, "key": %s, "text": 1, "line_map": [], "omissions": []}',
        "[1, 2]",
    ],
)
def test_a_correctly_signed_but_malformed_entry_is_a_miss(payload: str) -> None:
    """Only this cache's key can sign an entry; an entry it signed that does not decode is still a miss."""
    if "%s" in payload:
        payload = payload % json.dumps(KEY.as_list())
    tag = mac(SECRET, cache_entries.canonical_json(KEY.as_list()), payload, "null")
    assert decode_entry(SECRET, KEY, payload, "null", tag) is None


def test_a_signed_entry_round_trips_and_any_other_key_misses() -> None:
    outcome = Projected(text="é …\nb", line_map=(1, 2))
    payload, facts, tag = encode_entry(SECRET, KEY, outcome, canonical_facts({"k": ["…"]}))
    decoded = decode_entry(SECRET, KEY, payload, facts, tag)
    assert decoded is not None and decoded[0].text == outcome.text and decoded[0].line_map == (1, 2)
    assert decoded[1] == '{"k":["…"]}'.encode()
    assert decode_entry(b"t" * 32, KEY, payload, facts, tag) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=30), min_size=1, max_size=5))
def test_the_mac_is_over_the_newline_joined_utf8_of_its_parts(parts: list[str]) -> None:
    """Entries written before the per-part encoding still verify: the MAC's input bytes did not change."""
    joined = "\n".join(parts).encode("utf-8", "surrogatepass")
    assert mac(SECRET, *parts) == "hmac-sha256:" + hmac.digest(SECRET, joined, "sha256").hex()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(max_size=8), min_size=0, max_size=3), st.integers(0, 3))
def test_a_mac_over_64_kb_or_more_is_the_same_one_shot_mac(small: list[bytes], where: int) -> None:
    """The streamed route past 64 KB (a run record) gives the one-shot MAC of the joined parts,
    wherever the large part sits."""
    parts = list(small)
    parts.insert(min(where, len(parts)), b"\xe2\x80\xa6" * 30_000)
    joined = b"\n".join(parts)
    assert mac_of_encoded(SECRET, *parts) == "hmac-sha256:" + hmac.digest(SECRET, joined, "sha256").hex()


class _Key(str):
    pass


class _Count(int):
    pass


class _Mapping(dict[str, object]):
    pass


_ODD = st.sampled_from([1.5, float("inf"), b"x", {1}, object(), _Key("k"), _Count(3), True, None])
_MIXED = st.recursive(
    SCALARS | _ODD,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(TEXT | st.integers(0, 3) | st.builds(_Key, TEXT), inner, max_size=4)
        | st.builds(_Mapping, st.dictionaries(TEXT, inner, max_size=3))
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_MIXED)
def test_the_fast_canonical_check_agrees_with_the_one_that_names_the_problem(value: Any) -> None:
    try:
        digests._check(value, "", 1, [digests.MAX_CONTAINERS])
        expected = True
    except TypeError:
        expected = False
    assert digests.is_canonical_value(value) is expected


@pytest.mark.parametrize("part", ["payload", "facts"])
def test_an_entry_with_a_lone_surrogate_is_a_miss_not_an_error(part: str) -> None:
    payload, facts, tag = encode_entry(SECRET, KEY, Projected(text="x"), b'{"a":1}')
    parts = {"payload": payload, "facts": facts}
    parts[part] = parts[part][:-1] + "\udc80" + parts[part][-1:]
    assert decode_entry(SECRET, KEY, parts["payload"], parts["facts"], tag) is None
    # Signed with the surrogate in it (only the key's holder could): the MAC verifies, the JSON still refuses.
    forged = mac(SECRET, cache_entries.canonical_json(KEY.as_list()), parts["payload"], parts["facts"])
    assert decode_entry(SECRET, KEY, parts["payload"], parts["facts"], forged) is None


@settings(max_examples=150)
@given(
    st.text(max_size=200) | st.just("naïve — 𝔘 \x00 \u2028"),
    VALUES,
    st.lists(st.integers(1, 10**6), max_size=5),
)
def test_an_entry_mac_is_the_mac_of_its_stored_texts(text: str, facts_value: Any, line_map: list[int]) -> None:
    """``encode_entry`` MACs the bytes it already has; they must be what ``mac`` encodes from the stored texts,
    so stored entries keep verifying. (A lone surrogate never gets here: a text's digest refuses it.)"""
    facts = canonical_facts(facts_value)
    outcome = Projected(text=text, line_map=tuple(line_map))
    payload, facts_text, tag = encode_entry(SECRET, KEY, outcome, facts)
    assert tag == mac(SECRET, cache_entries._key_text(KEY), payload, facts_text)
    assert facts_text.encode("utf-8") == facts
    assert json.loads(payload)["text"] == text
    decoded = decode_entry(SECRET, KEY, payload, facts_text, tag)
    assert decoded is not None and decoded[0].text == text and decoded[1] == facts


class _Key(str):
    """A str subclass as a key: canonical JSON accepts it, orjson refuses it (so the exact route encodes it)."""


@settings(max_examples=100)
@given(VALUES, st.sampled_from([_Key("k"), 1, None, ("t",), b"b", True]), TEXT)
def test_keys_left_to_orjson_come_out_as_canonical_json_would_have_them(value: Any, key: Any, other: str) -> None:
    """``canonical_facts`` leaves dicts' keys to orjson; every key it refuses must still end as
    ``canonical_json`` ends: the same bytes, or the same refusal."""
    nested = {other: [value, {key: value}]}
    try:
        expected: bytes | None = canonical_json(nested)
    except TypeError:
        expected = None
    if expected is None:
        with pytest.raises(TypeError):
            canonical_facts(nested)
    else:
        assert canonical_facts(nested) == expected
    assert digests.has_canonical_values(nested) and (expected is not None) == digests.is_canonical_value(nested)
