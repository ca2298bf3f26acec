"""``compact_json`` writes long part strings with orjson: the text must be exactly the standard encoder's."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.errors import HistoryError
from lychd_core.history import SPLICE_MIN_CHARS, compact_json

REFERENCE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

# Pieces that need an escape, look like the placeholder, are multi-byte or a lone surrogate.
PIECES = [
    "z", "é", "\U0001f600", "\ue000", "lychd-splice:0", "lychd-splice:1",
    '"', "\\", "\n", "\x01", "\x1f", "\x7f", "\u2028", "\ud800",
]  # fmt: skip


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


def test_every_code_point_is_written_as_the_standard_encoder_writes_it() -> None:
    # The long strings go through orjson: its literal must be the standard library's for
    # every character (a lone surrogate it refuses is left to the standard encoder).
    for start in range(0, 0x110000, 0x800):
        text = "".join(chr(code) for code in range(start, start + 0x800) if not 0xD800 <= code <= 0xDFFF)
        text = (text * (SPLICE_MIN_CHARS // max(1, len(text)) + 1)) if text else "x" * SPLICE_MIN_CHARS
        message = {"kind": "request", "parts": [{"part_kind": "tool-return", "content": text}]}
        assert compact_json(message) == REFERENCE.encode(message), hex(start)
    lone = {"kind": "request", "parts": [{"part_kind": "tool-return", "content": "\ud800" * SPLICE_MIN_CHARS}]}
    assert compact_json(lone) == REFERENCE.encode(lone)
