"""Exact decoded text under pinned encoding and newline rules, with line provenance and bounds."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lychd_verbatim import PROFILE, VerbatimOptions

from lychd_core.digests import sha256_digest
from lychd_core.families import Projected, SourceMaterial, Unavailable


def project(
    data: bytes, max_chars: int = 100_000, max_bytes: int = 10_000_000, **options: Any
) -> Projected | Unavailable:
    material = SourceMaterial("doc.txt", "text/plain", data, sha256_digest(data), max_bytes, max_chars)
    return PROFILE.project(material, VerbatimOptions(**options))


def projected(data: bytes, **kwargs: Any) -> Projected:
    result = project(data, **kwargs)
    assert isinstance(result, Projected), result
    return result


def test_exact_text_and_line_map() -> None:
    result = projected(b"alpha\nbeta\n\ngamma")
    assert result.text == "alpha\nbeta\n\ngamma"
    assert result.line_map == (1, 2, 3, 4)
    assert result.omissions == ()
    facts: Any = result.facts
    assert facts["encoding"] == "utf-8" and facts["truncated"] is False and facts["source_lines"] == 4


def test_crlf_is_normalized_by_default_and_preserved_on_request() -> None:
    data = b"one\r\ntwo\rthree\n"
    assert projected(data).text == "one\ntwo\nthree\n"
    kept = projected(data, newlines="preserve")
    assert kept.text == "one\r\ntwo\rthree\n" and kept.line_map == (1, 2, 3)
    facts: Any = kept.facts
    assert facts["source_newlines"] == "mixed"


def test_bom_is_dropped_and_reported() -> None:
    result = projected(b"\xef\xbb\xbfhello\n")
    facts: Any = result.facts
    assert result.text == "hello\n" and facts["byte_order_mark"] is True


def test_declared_alternative_encodings() -> None:
    assert projected(b"caf\xe9\n", encoding="latin-1").text == "café\n"
    assert projected("señal\n".encode("utf-16"), encoding="utf-16").text == "señal\n"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"caf\xe9\n", "not valid utf-8"),
        (b"\x00\x01\x02binary", "looks binary"),
        (bytes(range(256)), "not valid utf-8"),
        (b"text with a \x07 bell\n", "U+0007"),
    ],
)
def test_undecodable_or_binary_refuses(data: bytes, words: str) -> None:
    result = project(data)
    assert isinstance(result, Unavailable) and words in result.reason


def test_ascii_refuses_non_ascii() -> None:
    result = project("é".encode(), encoding="ascii")
    assert isinstance(result, Unavailable) and "ascii" in result.reason


def test_over_the_byte_bound_refuses() -> None:
    result = project(b"x" * 100, max_bytes=10)
    assert isinstance(result, Unavailable) and "100 bytes" in result.reason


def test_over_the_character_bound_refuses_by_default() -> None:
    result = project(b"line\n" * 100, max_chars=50)
    assert isinstance(result, Unavailable) and "truncation policy is refuse" in result.reason


def test_head_truncation_is_visible_and_declared() -> None:
    data = b"".join(b"line %d\n" % i for i in range(1, 101))
    result = projected(data, max_chars=120, truncation="head")
    assert len(result.text) <= 120
    lines = result.text.splitlines()
    assert lines[-1].startswith("[verbatim: truncated; source lines ")
    kept = len(lines) - 1
    assert lines[:kept] == [f"line {i}" for i in range(1, kept + 1)]
    assert result.line_map == (*range(1, kept + 1), kept + 1)
    (omission,) = result.omissions
    assert (omission.kind, omission.first_line, omission.last_line) == ("truncated", kept + 1, 100)
    assert f"source lines {kept + 1}-100 of 100 omitted" in lines[-1]


def test_head_truncation_refuses_when_not_even_the_marker_fits() -> None:
    result = project(b"line\n" * 100, max_chars=10, truncation="head")
    assert isinstance(result, Unavailable) and "marker" in result.reason


def test_form_feed_lines_map_to_their_editor_line() -> None:
    result = projected(b"a\x0cb\nc\n")
    assert result.text.splitlines() == ["a", "b", "c"]
    assert result.line_map == (1, 1, 2)


TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=300)


@given(TEXT, st.sampled_from(["normalize", "preserve"]))
def test_any_text_round_trips_with_valid_provenance(text: str, newlines: str) -> None:
    result = project(text.encode("utf-8"), newlines=newlines)
    if isinstance(result, Unavailable):
        assert "looks binary" in result.reason
        return
    expected = text if newlines == "preserve" else text.replace("\r\n", "\n").replace("\r", "\n")
    assert result.text == expected
    assert len(result.line_map) == len(result.text.splitlines())
    assert list(result.line_map) == sorted(result.line_map)


@given(
    st.lists(st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40), max_size=60),
    st.integers(70, 800),
)
def test_head_truncation_never_exceeds_the_bound_and_keeps_a_prefix(lines: list[str], max_chars: int) -> None:
    data = "\n".join(lines).encode()
    result = project(data, max_chars=max_chars, truncation="head")
    if isinstance(result, Unavailable):
        return
    assert len(result.text) <= max_chars
    if result.omissions:
        head = result.text.rsplit("\n[verbatim: truncated", 1)[0] if "\n[verbatim" in result.text else ""
        assert "\n".join(lines).startswith(head)
    else:
        assert result.text == "\n".join(lines)
