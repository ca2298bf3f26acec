"""``SubstringSet`` against a naive scan and against the one-pass automaton it replaced: the same
occurrences in the same order, with or without a haystack bound, whatever the search window."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ahocorasick  # type: ignore[import-not-found,unused-ignore]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.privacy import grammar, matching
from lychd_core.privacy.grammar import FieldSpec, ParsedText, RecordGrammar
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


def one_pass_spans(needles: list[str], text: str, longest_haystack: int | None) -> tuple[int, list[tuple[int, int]]]:
    """The matcher as it was before windowing: needles filtered one by one, inserted sorted, and the
    whole text handed to the automaton at once; its needle count and its spans, in order."""
    fits: Callable[[str], Any] = len if longest_haystack is None else (lambda n: 0 < len(n) <= longest_haystack)
    automaton: Any = ahocorasick.Automaton(ahocorasick.STORE_LENGTH)
    for word in sorted(filter(fits, needles)):
        automaton.add_word(word)
    if not len(automaton) or not text:
        return len(automaton), []
    automaton.make_automaton()
    return len(automaton), [(last + 1 - length, last + 1) for last, length in automaton.iter(text)]


LONG_TEXTS = st.lists(st.text(ALPHABET, max_size=40), min_size=1, max_size=3)


@settings(max_examples=400, deadline=None)
@given(NEEDLES, LONG_TEXTS, st.booleans(), st.integers(min_value=1, max_value=9))
def test_windowed_search_finds_exactly_what_one_pass_found(
    needles: list[str], texts: list[str], bounded: bool, window: int
) -> None:
    """Any window, even one character, against occurrences that straddle window edges."""
    longest = max(map(len, texts)) if bounded else None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matching, "WINDOW_CHARS", window)
        matcher = SubstringSet(needles, longest_haystack=longest)
        for text in texts:
            count, expected = one_pass_spans(needles, text, longest)
            assert len(matcher) == count
            assert list(matcher.spans(text)) == expected
            assert matcher.first_in(text) == (expected[0] if expected else None)
        assert matcher.occurs_in_any(texts) is any(one_pass_spans(needles, text, longest)[1] for text in texts)


def test_a_set_bounded_to_nothing_holds_nothing() -> None:
    assert len(SubstringSet(["a", "", "bc"], longest_haystack=0)) == 0
    assert len(SubstringSet(["a", "", "bc"], longest_haystack=1)) == 1
    assert len(SubstringSet(["a", "", "bc"])) == 2


GRAMMAR = RecordGrammar(name="g@1", fields=(FieldSpec("a", "k"), FieldSpec("b", "k", optional=True)))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["x", " ", " owner=", "owner=", "\n", "<redacted>", "é"]), max_size=30),
    st.integers(min_value=1, max_value=9),
    st.integers(min_value=0, max_value=3),
)
def test_windowed_redaction_check_equals_comparing_the_whole_redaction(
    parts: list[str], window: int, edit: int
) -> None:
    text = "".join(parts)
    redacted = GRAMMAR.redacted(text)
    candidates = [redacted, redacted + "\n", redacted[:-1], redacted.replace("x", "y", 1), text][edit:]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grammar, "_WINDOW_CHARS", window)
        for candidate in candidates:
            assert GRAMMAR.redacts_to(text, candidate) is (redacted == candidate)


def test_parsed_text_derives_its_owners_unless_the_parser_gave_them() -> None:
    records = (("a", "o1"), ("b", "o2"), ("c", "o1"))
    assert ParsedText(records).owners == frozenset({"o1", "o2"})
    assert ParsedText(records, frozenset(), frozenset({"o1", "o2"})).owners == frozenset({"o1", "o2"})
    assert "o1" not in repr(ParsedText((), frozenset(), frozenset({"o1"})))
