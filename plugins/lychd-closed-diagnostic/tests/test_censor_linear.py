"""Censor and verifier stay linear (issue 27, finding 4); speed itself is measured in benchmarks/.

Before: one out-of-grammar line cost 16.6 s at 10k characters (an unanchored pattern retried
at every position), and 20k owners x 20k vocabulary items 289 s (every owner against every
item). These inputs now finish with their typed outcome; a quadratic path would not.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_closed_diagnostic import PROFILE, ClosedDiagnosticOptions, censor, censor_texts, owner_spans

from lychd_core.errors import CutReason, CutRefused
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy import CallProjection, ClosedVocabulary, DisclosurePlan, SealAuthority, local_ref, parse_text
from lychd_core.privacy.prepare import PreparedCut, prepare_cut

LABEL = PrivatizationLabel(
    privacy_class=PrivacyClass.PRIVATE, weight=0, categories=frozenset({"diagnostic"}), lineage_known=True
)
NOW = 1_800_000_000
MEGABYTE = 1 << 20


def vocabulary(dependencies: int) -> ClosedVocabulary:
    return ClosedVocabulary.from_mapping(
        {
            "schema": "closed-vocabulary@1",
            "items": {
                "dependencies": [f"dep{i}" for i in range(dependencies)],
                "versions": ["1.0"],
                "statuses": ["clean"],
            },
        }
    )


def plan(source: CallProjection) -> DisclosurePlan:
    return DisclosurePlan.from_json(
        {
            "consumer_kind": "model", "consumer_id": "hosted-llm", "purpose": "triage",
            "manifest_digest": source.manifest_digest, "restricted_ref": local_ref(),
            "semantic_invariants": ["dependencies"], "threat_model": "honest-but-curious-provider",
            "retention": "no-retention", "max_uses": 1, "target": "hosted", "expires_at": NOW + 60,
        }
    )  # fmt: skip


def prepare(text: str, vocab: ClosedVocabulary) -> PreparedCut:
    source = CallProjection.of_texts("artifacts", [text], LABEL)
    options = ClosedDiagnosticOptions()
    return prepare_cut(PROFILE, source, plan(source), vocab, options, SealAuthority(), now=NOW)  # type: ignore[arg-type]


LONG_LINES = {
    "no spaces": "x" * MEGABYTE,
    "only spaces": "a " * (MEGABYTE // 2),
    "six fields then prose": "dep1 1.0 clean - - - " + "y" * MEGABYTE,
    "slot-shaped but endless owner": "dep1 1.0 clean - - - owner=" + "z" * MEGABYTE,
}


@pytest.mark.parametrize("case", sorted(LONG_LINES))
def test_a_megabyte_line_outside_the_grammar_is_refused_naming_its_line(case: str) -> None:
    vocab = vocabulary(2)
    text = "closed-diagnostic@1\ndep1 1.0 clean - - - owner=acme\n" + LONG_LINES[case] + "\n"
    with pytest.raises(CutRefused) as refused:
        prepare(text, vocab)
    assert refused.value.reason is CutReason.UNCOVERED_TEXT
    assert "line 3" in str(refused.value) and "ends with a newline" not in str(refused.value)
    with pytest.raises(CutRefused, match="line 3"):
        parse_text(text, PROFILE.grammar, vocab, where="text", candidate=False)
    with pytest.raises(CutRefused, match="line 3"):
        list(owner_spans(text, vocab))


def test_twenty_thousand_owners_against_twenty_thousand_items_prepare() -> None:
    count = 20_000
    vocab = vocabulary(count)
    text = "closed-diagnostic@1\n" + "".join(f"dep{i} 1.0 clean - - - owner=own{i}\n" for i in range(count))
    prepared = prepare(text, vocab)
    assert prepared.verification.verdict == "pass"
    assert prepared.receipts[-1].operations[0].count == count


def test_one_owner_hidden_among_twenty_thousand_items_is_still_found() -> None:
    count = 20_000
    vocab = vocabulary(count)
    records = [f"dep{i} 1.0 clean - - - owner=own{i}" for i in range(count)]
    records[-1] = f"dep{count - 1} 1.0 clean - - - owner=ep1999"  # inside the item dep19999
    text = "closed-diagnostic@1\n" + "\n".join(records) + "\n"
    with pytest.raises(CutRefused) as refused:
        prepare(text, vocab)
    assert refused.value.reason is CutReason.AMBIGUOUS_SPAN
    source = CallProjection.of_texts("artifacts", [text.replace("owner=ep1999", "owner=own-x")], LABEL)
    texts, redacted = censor_texts(source, vocab)
    assert redacted == count and "own" not in texts[0].replace("owner=", "")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["x", " ", " owner=", "owner=", "\n", "<redacted>", "é", "a b"]), max_size=30),
    st.integers(min_value=1, max_value=9),
)
def test_windowed_redaction_equals_one_substitution(parts: list[str], window: int) -> None:
    """The censor redacts a window of whole lines at a time; joined, that is the whole text's redaction."""
    text = "".join(parts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(censor, "_REDACT_CHARS", window)
        assert censor._redacted(text) == censor._OWNER_SLOT.sub(censor._REDACTED, text)
