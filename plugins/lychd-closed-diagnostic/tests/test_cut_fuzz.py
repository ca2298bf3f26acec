"""Fuzzing the cut (issue 27): both parsers name the same first uncovered line, however long
its lines, and no rewritten receipt field ever verifies."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_closed_diagnostic import PROFILE, ClosedDiagnosticOptions, owner_spans

from lychd_core.errors import CutRefused
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy import (
    CallProjection,
    ClosedVocabulary,
    DisclosurePlan,
    SealAuthority,
    TransformationReceipt,
    local_ref,
    parse_text,
    verify_cut,
)
from lychd_core.privacy.prepare import cut_policy_digest, prepare_cut

VOCABULARY = ClosedVocabulary.from_mapping(
    {
        "schema": "closed-vocabulary@1",
        "items": {"dependencies": ["jinja2", "requests"], "versions": ["3.1.2", "2.31.0"], "statuses": ["clean"]},
    }
)
LABEL = PrivatizationLabel(
    privacy_class=PrivacyClass.PRIVATE, weight=0, categories=frozenset({"diagnostic"}), lineage_known=True
)
OPTIONS = ClosedDiagnosticOptions()
NOW = 1_800_000_000
GOOD = st.sampled_from(["jinja2 3.1.2 clean - - - owner=acme", "requests 2.31.0 clean - - - owner=zz-owner"])
PIECE = st.sampled_from(["x", "a ", " ", "owner=", "jinja2 ", "-", "\t", "=", "\u0430"])
BAD = st.tuples(PIECE, st.integers(1, 3000)).map(lambda piece: piece[0] * piece[1])


def first_refused_line(parse: Any) -> str | None:
    try:
        parse()
    except CutRefused as refused:
        return str(refused).split("line ")[1].split(" ")[0].rstrip(":")
    return None


@settings(max_examples=80, deadline=None)
@given(st.lists(GOOD, max_size=4), BAD, st.lists(GOOD | BAD, max_size=3))
def test_both_parsers_name_the_same_first_line_outside_the_grammar(
    before: list[str], bad: str, after: list[str]
) -> None:
    text = "closed-diagnostic@1\n" + "".join(f"{line}\n" for line in [*before, bad, *after])
    core = first_refused_line(lambda: parse_text(text, PROFILE.grammar, VOCABULARY, where="t", candidate=False))
    censor = first_refused_line(lambda: list(owner_spans(text, VOCABULARY)))
    assert core == censor
    assert core is None or int(core) <= len(before) + 2


def plan(source: CallProjection) -> DisclosurePlan:
    return DisclosurePlan.from_json(
        {
            "consumer_kind": "model", "consumer_id": "hosted-llm", "purpose": "triage",
            "manifest_digest": source.manifest_digest, "restricted_ref": local_ref(),
            "semantic_invariants": ["dependencies"], "threat_model": "honest-but-curious-provider",
            "retention": "no-retention", "max_uses": 1, "target": "hosted", "expires_at": NOW + 60,
        }
    )  # fmt: skip


REWRITES = st.one_of(
    st.tuples(st.just("transformer"), st.sampled_from(["closed-diagnostic@2", "other@1", "pip-audit-import@1"])),
    st.tuples(
        st.just("operations"),
        st.lists(
            st.fixed_dictionaries(
                {
                    "operation": st.sampled_from(["redact", "pseudonymize", "omit", "encode", "generalize"]),
                    "category": st.sampled_from(["owner", "record", "description"]),
                    "count": st.integers(1, 5),
                }
            ),
            max_size=2,
        ),
    ),
    st.tuples(st.just("expires_at"), st.integers(NOW + 1, NOW + 120)),
    st.tuples(st.just("residual_label_digest"), st.just("sha256:" + "1" * 64)),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(GOOD, min_size=1, max_size=4), REWRITES)
def test_no_rewritten_terminal_receipt_field_verifies(lines: list[str], rewrite: tuple[str, Any]) -> None:
    source = CallProjection.of_texts("artifacts", ["closed-diagnostic@1\n" + "".join(f"{x}\n" for x in lines)], LABEL)
    prepared = prepare_cut(PROFILE, source, plan(source), VOCABULARY, OPTIONS, SealAuthority(), now=NOW)  # type: ignore[arg-type]
    field, value = rewrite
    data = prepared.receipts[-1].to_json() | {field: value}
    if data == prepared.receipts[-1].to_json():
        return  # the rewrite chose the value already there
    verification = verify_cut(
        source=source,
        candidate=prepared.candidate,
        plan=prepared.cut.plan,
        receipts=(TransformationReceipt.from_json(data),),
        grammar=PROFILE.grammar,
        vocabulary=VOCABULARY,
        policy_digest=cut_policy_digest(PROFILE.pin, OPTIONS, PROFILE.grammar, VOCABULARY),
        now=NOW,
        transformer=PROFILE.pin,
    )
    assert verification.verdict == "fail"
