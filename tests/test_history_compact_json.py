"""``compact_json`` splices long plain strings in whole: the text must be exactly the encoder's."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.errors import HistoryError
from lychd_core.history import SPLICE_MIN_CHARS, compact_json

REFERENCE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

# Pieces that need an escape, look like the placeholder, or are multi-byte, mixed with plain ones.
PIECES = ["z", "é", "\U0001f600", "\ue000", "lychd-splice:0", "lychd-splice:1", '"', "\\", "\n", "\x01", "\x1f", "\x7f"]


def long_text() -> st.SearchStrategy[str]:
    plain = st.lists(st.sampled_from(PIECES[:6]), min_size=1, max_size=6).map("".join)
    mixed = st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join)
    piece = st.one_of(plain, mixed)
    return st.tuples(piece, st.integers(0, 3)).map(
        lambda pair: pair[0] * (SPLICE_MIN_CHARS // len(pair[0]) + pair[1]) if pair[1] else pair[0]
    )


values = st.one_of(long_text(), st.integers(), st.none(), st.booleans())
parts = st.dictionaries(st.sampled_from(["content", "args", "part_kind", "x"]), st.one_of(values, st.lists(values)))
messages = st.fixed_dictionaries(
    {"kind": st.sampled_from(["request", "response"]), "parts": st.lists(parts, max_size=3)},
    optional={"run_id": long_text(), "note": values},
)


@settings(max_examples=300)
@given(messages)
def test_compact_json_is_the_encoders_text(message: dict[str, Any]) -> None:
    before = json.dumps(message, sort_keys=True)
    assert compact_json(message) == REFERENCE.encode(message)
    assert json.dumps(message, sort_keys=True) == before  # the caller's message is never edited


def test_a_placeholder_lookalike_in_the_message_falls_back_to_the_encoder() -> None:
    body = "b" * SPLICE_MIN_CHARS
    lookalike = "\ue000lychd-splice:0\ue000"
    message = {"kind": "request", "parts": [{"args": lookalike, "content": body}]}  # the lookalike is written first
    assert compact_json(message) == REFERENCE.encode(message)
    assert compact_json(message).count(body) == 1


def test_long_text_needing_escapes_is_escaped() -> None:
    body = 'say "hi"\n' * SPLICE_MIN_CHARS
    message = {"kind": "request", "parts": [{"part_kind": "tool-return", "content": body}]}
    assert compact_json(message) == REFERENCE.encode(message)
    assert '\\"hi\\"\\n' in compact_json(message)


def test_non_dict_values_are_encoded_as_before() -> None:
    for value in (["x" * 2000], "y" * 2000, 3, None):
        assert compact_json(value) == REFERENCE.encode(value)


def test_values_that_are_not_plain_json_are_typed_refusals() -> None:
    cyclic: dict[str, Any] = {"kind": "request", "parts": []}
    cyclic["parts"].append({"part_kind": "user-prompt", "content": cyclic})
    deep: list[Any] = []
    innermost = deep
    for _ in range(100_000):
        innermost.append([])
        innermost = innermost[0]
    for bad in (cyclic, deep, {"f": float("nan")}, {"s": {1, 2}}):
        with pytest.raises(HistoryError, match="not plain JSON"):
            compact_json(bad)
    assert compact_json({"kind": "request", "parts": []}) == '{"kind":"request","parts":[]}'  # nothing left behind
