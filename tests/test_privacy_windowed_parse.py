"""The verifier's parser reads a text a window of whole lines at a time and keeps only the distinct
values; against the whole-text parse it replaced it gives the same records, items, owners (in their
order of first appearance) and the same refusal, whatever the window. ``SubstringSet`` answers alike
whatever order its needles come in; a projection's digest taken a window of text at a time is the
digest of its whole canonical encoding."""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from operator import itemgetter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.digests import json_digest
from lychd_core.errors import CutRefused
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy import CallProjection, ClosedVocabulary, grammar
from lychd_core.privacy import projection as projection_module
from lychd_core.privacy.grammar import FieldSpec, ParsedText, RecordGrammar, check_owners, parse_text
from lychd_core.privacy.matching import SubstringSet

GRAMMAR = RecordGrammar(name="g@1", fields=(FieldSpec("a", "k"), FieldSpec("b", "k", optional=True)))
VOCABULARY = ClosedVocabulary.from_mapping({"schema": "closed-vocabulary@1", "items": {"k": ["x", "y", "xy"]}})
LINES = st.sampled_from(
    ["x y owner=o1", "y - owner=o2", "xy x owner=o1", "x - owner=<redacted>", "x z owner=o3", "x y owner=", "x y",
     "x y owner=o 4", " ", "", "y xy owner=xo", "x x owner=o1 owner=o2"]
)  # fmt: skip
TEXTS = st.one_of(
    st.lists(LINES, max_size=12).map(lambda lines: "g@1\n" + "".join(line + "\n" for line in lines)),
    st.lists(st.sampled_from(["g@1\n", "x y owner=o1", "\n", " ", "x"]), max_size=12).map("".join),
)


def whole_text_parse(text: str, candidate: bool) -> tuple[object, ...]:
    """What the parser returned before it read by windows, as plain values (or the refusal)."""
    try:
        parsed = parse_text(text, GRAMMAR, VOCABULARY, where="t", candidate=candidate)
    except CutRefused as refusal:
        return ("refused", refusal.reason, str(refusal))
    records = tuple(GRAMMAR.record_re.findall(text, len("g@1\n")))
    items = set(chain.from_iterable(record[:-1] for record in records)) - {GRAMMAR.none}
    owners = list(dict.fromkeys(map(itemgetter(-1), records)))
    assert list(parsed.records) == list(records) and len(parsed.records) == len(records)
    assert parsed.columns == tuple(tuple(map(itemgetter(i), records)) for i in range(2)) or not records
    return ("parsed", frozenset(parsed.items), list(parsed.owners), items, owners)


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.booleans(), st.integers(min_value=1, max_value=30))
def test_any_window_parses_as_the_whole_text(text: str, candidate: bool, window: int) -> None:
    whole = whole_text_parse(text, candidate)
    if whole[0] == "parsed":  # the parser's sets equal the reference built from every record
        assert whole[1] == whole[3] and whole[2] == whole[4]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grammar, "_SCAN_CHARS", window)
        assert whole_text_parse(text, candidate) == whole


def test_parsed_records_are_counted_without_being_kept_and_never_shown() -> None:
    text = "g@1\nx y owner=secret-owner\ny - owner=secret-owner\n"
    parsed = parse_text(text, GRAMMAR, VOCABULARY, where="t", candidate=False)
    assert len(parsed.records) == 2 and parsed.records[1] == ("y", "-", "secret-owner")
    assert "secret-owner" not in repr(parsed) and "secret-owner" not in repr(parsed.records)


NEEDLES = st.lists(st.text(st.sampled_from("ab\n"), max_size=4), max_size=8)


@settings(max_examples=300, deadline=None)
@given(NEEDLES, st.lists(st.text(st.sampled_from("ab\n"), max_size=10), max_size=3), st.randoms())
def test_the_order_of_the_needles_changes_no_answer(needles: list[str], texts: list[str], random: object) -> None:
    shuffled = list(needles)
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    one, other = SubstringSet(needles), SubstringSet(shuffled)
    assert len(one) == len(other)
    for text in texts:
        assert list(one.spans(text)) == list(other.spans(text))
    assert one.occurs_in_any(texts) is other.occurs_in_any(texts)


def test_a_bounded_set_that_left_nothing_out_answers_for_any_text() -> None:
    matcher = SubstringSet(["ab", "b"], longest_haystack=2)
    assert matcher.occurs_in("xxxxab") and matcher.occurs_in_any(["xxxxxx", "xxab"])
    assert not SubstringSet(["long-owner"], longest_haystack=3).occurs_in_any(["abc"])


LABEL = PrivatizationLabel(privacy_class=PrivacyClass.PRIVATE, weight=0, lineage_known=True)
ANY_TEXT = st.lists(
    st.sampled_from(["a", '"', "\\", "\n", "\x00", "\x1f", "é", "\u2028", "\ud800", "😀", '"text":""}']), max_size=12
).map("".join)


def outcome(compute: Callable[[], str]) -> tuple[str, str]:
    try:
        return ("digest", compute())
    except (TypeError, ValueError) as error:  # a lone surrogate: the same refusal either way
        return ("refused", type(error).__name__)


@settings(max_examples=300, deadline=None)
@given(st.lists(ANY_TEXT, min_size=1, max_size=3), st.integers(min_value=1, max_value=7))
def test_a_projection_digest_taken_by_windows_is_the_whole_encoding_digest(texts: list[str], window: int) -> None:
    projection = CallProjection.of_texts("artifacts", texts, LABEL)
    expected = outcome(lambda: json_digest(projection.to_json()))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(projection_module, "_DIGEST_CHARS", window)
        assert outcome(lambda: CallProjection.of_texts("artifacts", texts, LABEL).digest) == expected


def test_the_longest_listed_item_bounds_the_owner_trie_and_a_longer_item_is_never_missed() -> None:
    assert (VOCABULARY.longest("k"), VOCABULARY.longest("unlisted")) == (2, 0)
    # hand-built texts: ``parse_text`` would refuse these unlisted items; the owner check must not miss them
    fits = ParsedText((("zz-own-zz", "-", "own"),), frozenset({"zz-own-zz"}), frozenset({"own"}))
    with pytest.raises(CutRefused, match="appears as or inside a public item"):
        check_owners([fits], GRAMMAR, VOCABULARY)
    left_out = ParsedText((("zz-long-owner-value", "-", "long-owner-value"),), frozenset({"zz-long-owner-value"}))
    with pytest.raises(ValueError, match="this set was built for"):
        check_owners([left_out], GRAMMAR, VOCABULARY)
