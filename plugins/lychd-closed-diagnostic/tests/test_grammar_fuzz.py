"""Fuzzing the closed-diagnostic grammar: only declared refusals escape, and the censor's
parser and the core verifier's independent parser always agree."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from lychd_closed_diagnostic import GRAMMAR, censor_texts, owner_spans
from lychd_closed_diagnostic.censor import check_ambiguity

from lychd_core.errors import CutRefused
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy import CallProjection, ClosedVocabulary, check_owners, parse_text

VOCABULARY = ClosedVocabulary.from_mapping(
    {
        "schema": "closed-vocabulary@1",
        "items": {
            "dependencies": ["jinja2", "requests"],
            "versions": ["3.1.2", "3.1.3", "2.31.0"],
            "statuses": ["clean", "vulnerable"],
            "diagnostics": ["GHSA-h5c8-rqwp-cp95"],
            "citations": ["CVE-2024-22195"],
        },
    }
)
LABEL = PrivatizationLabel(privacy_class=PrivacyClass.PRIVATE, weight=0, lineage_known=True)
TOKENS = [
    "jinja2", "requests", "3.1.2", "3.1.3", "2.31.0", "clean", "vulnerable", "GHSA-h5c8-rqwp-cp95",
    "CVE-2024-22195", "-", "owner=", "owner=zz-private-owner", "owner=acme", "zz-private-owner", " ", "\n",
    "closed-diagnostic@1", "closed-diagnostic@1\n", "jinj\u0430", "\u200b", "\r", "=", "", "owner=<redacted>",
]  # fmt: skip
fragments = st.lists(st.sampled_from(TOKENS) | st.text(max_size=4), max_size=40).map("".join)
heads = st.tuples(
    st.sampled_from(["jinja2", "requests"]),
    st.sampled_from(["3.1.2", "3.1.3", "2.31.0"]),
    st.sampled_from(["clean", "vulnerable"]),
    st.sampled_from(["GHSA-h5c8-rqwp-cp95", "-"]),
    st.sampled_from(["CVE-2024-22195", "-"]),
    st.sampled_from(["3.1.3", "-"]),
).map(" ".join)
owners = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,20}", fullmatch=True)


def plugin_parse(text: str) -> tuple[str, ...] | None:
    try:
        values = tuple(span.value for span in owner_spans(text, VOCABULARY))
        check_ambiguity([text], frozenset(values), VOCABULARY)
        return values
    except CutRefused:
        return None


def core_parse(text: str) -> tuple[str, ...] | None:
    try:
        parsed = parse_text(text, GRAMMAR, VOCABULARY, where="t", candidate=False)
        check_owners([parsed], GRAMMAR, VOCABULARY)
        return tuple(record[-1] for record in parsed.records)
    except CutRefused:
        return None


@given(fragments)
def test_only_declared_refusals_escape_and_both_parsers_agree(text: str) -> None:
    assert plugin_parse(text) == core_parse(text)


@given(st.lists(heads, max_size=8), fragments)
def test_arbitrary_tails_after_valid_records(records: list[str], tail: str) -> None:
    text = "closed-diagnostic@1\n" + "".join(f"{head} owner=zz-private-owner\n" for head in records) + tail
    assert plugin_parse(text) == core_parse(text)


@given(st.lists(st.tuples(heads, owners), min_size=1, max_size=8))
def test_valid_records_censor_to_a_candidate_the_verifier_reconstructs(records: list[tuple[str, str]]) -> None:
    text = "closed-diagnostic@1\n" + "".join(f"{head} owner={owner}\n" for head, owner in records)
    source = CallProjection.of_texts("artifacts", [text], LABEL)
    accepted = core_parse(text)
    try:
        texts, count = censor_texts(source, VOCABULARY)
    except CutRefused:
        assert accepted is None, "the censor refused what the verifier accepts"
        return
    assert accepted is not None and count == len(records)
    candidate = parse_text(texts[0], GRAMMAR, VOCABULARY, where="c", candidate=True)
    assert tuple(zip(*candidate.columns, strict=True)) == tuple(tuple(head.split(" ")) for head, _ in records)
    assert not any(f"owner={owner}\n" in texts[0] for _, owner in records)
