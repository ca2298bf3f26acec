"""``SubstringSet`` against a naive scan: the same occurrences, with or without a haystack bound."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.privacy.matching import MAX_NEEDLE_CHARS, SubstringSet

ALPHABET = st.sampled_from("ab\n é")
NEEDLES = st.lists(st.text(ALPHABET, max_size=5), max_size=8)
TEXTS = st.lists(st.text(ALPHABET, max_size=12), max_size=4)


def naive_spans(needles: list[str], text: str) -> set[tuple[int, int]]:
    return {
        (start, start + len(needle))
        for needle in set(needles)
        if needle
        for start in range(len(text) - len(needle) + 1)
        if text.startswith(needle, start)
    }


@settings(max_examples=300, deadline=None)
@given(NEEDLES, TEXTS, st.booleans())
def test_spans_and_occurrence_equal_a_naive_scan(needles: list[str], texts: list[str], bounded: bool) -> None:
    longest = max(map(len, texts), default=0) if bounded else None
    matcher = SubstringSet(needles, longest_haystack=longest)
    for text in texts:
        expected = naive_spans(needles, text)
        assert set(matcher.spans(text)) == expected
        assert matcher.occurs_in(text) is bool(expected)
    assert matcher.occurs_in_any(texts) is any(naive_spans(needles, text) for text in texts)


def test_a_bounded_set_refuses_a_longer_text_instead_of_answering_wrongly() -> None:
    matcher = SubstringSet(["abc", "a-much-longer-owner"], longest_haystack=5)
    assert len(matcher) == 1  # the needle that cannot fit in any haystack is left out
    assert matcher.occurs_in("xabcx")
    with pytest.raises(ValueError, match="longer than this set was built for"):
        matcher.occurs_in("a-much-longer-owner")
    with pytest.raises(ValueError, match="5 characters this set was built for"):
        matcher.occurs_in_any(["ok", "a-much-longer-owner"])


def test_a_needle_beyond_the_limit_is_refused_and_repr_hides_the_needles() -> None:
    with pytest.raises(ValueError, match=f"exceeds {MAX_NEEDLE_CHARS}"):
        SubstringSet(["x" * (MAX_NEEDLE_CHARS + 1)])
    assert repr(SubstringSet(["secret-owner"])) == "SubstringSet(1 needles)"
