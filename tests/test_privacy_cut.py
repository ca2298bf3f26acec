"""Preparing, verifying and sealing an irreversible Privacy Cut, and the attacks on it."""

from __future__ import annotations

import dataclasses
import math

import pytest
from lychd_closed_diagnostic import PROFILE
from lychd_closed_diagnostic.profile import ClosedDiagnosticOptions

from lychd_core.digests import canonical_json
from lychd_core.errors import CutReason, CutRefused, DisclosurePlanError, VocabularyError
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy import (
    CallProjection,
    ClosedVocabulary,
    EgressConfig,
    EgressGate,
    EgressTarget,
    SealAuthority,
    verify_cut,
)
from lychd_core.privacy.prepare import Censored, cut_policy_digest, prepare_cut
from tests.support.cuts import (
    NOW,
    OPTIONS,
    OWNER,
    POLICY,
    REPORT_LABEL,
    VOCABULARY,
    evidence,
    plan_for,
    prepare,
    projection_of,
    record_text,
    report_projection,
)
from tests.support.sensitive import SENSITIVE

JINJA = "jinja2 3.1.2 vulnerable GHSA-h5c8-rqwp-cp95 CVE-2024-22195 3.1.3"
CLEAN = "requests 2.31.0 clean - - -"


def refused(source: CallProjection, **kwargs: object) -> CutReason:
    with pytest.raises(CutRefused) as caught:
        prepare(source, **kwargs)  # type: ignore[arg-type]
    assert not any(value in str(caught.value) for value in SENSITIVE), "a refusal must not quote the value"
    return caught.value.reason


def test_a_report_is_prepared_verified_and_sealed_without_its_owner() -> None:
    prepared = prepare(report_projection())
    text = prepared.candidate.items[0].text
    assert OWNER not in text and text.count("owner=<redacted>") == 3
    assert "GHSA-h5c8-rqwp-cp95" in text and "CVE-2023-43804" in text, "utility survives"
    assert prepared.verification.verdict == "pass"
    assert prepared.candidate.label == prepared.source.label, "source influence never falls"
    assert prepared.cut.public_evidence().keys() == {"schema", "event_id"}
    assert OWNER not in evidence(prepared)


@pytest.mark.parametrize(
    "text",
    [
        "closed-diagnostic@1\nThe billing service is vulnerable, please fix.\n",
        "closed-diagnostic@1\n" + JINJA + " owner=acme\n" + "free prose\n",
        "closed-diagnostic@1\n" + JINJA + " owner=acme",  # no final newline
        "closed-diagnostic@1\n" + JINJA + "  owner=acme\n",  # two spaces
        "closed-diagnostic@2\n" + JINJA + " owner=acme\n",
        JINJA + " owner=acme\n",
        "closed-diagnostic@1\n" + JINJA + " extra owner=acme\n",
        "closed-diagnostic@1\n" + JINJA + " owner=two words\n",
        "closed-diagnostic@1\n" + JINJA + " owner=\n",
        "closed-diagnostic@1\r\n" + JINJA + " owner=acme\r\n",
    ],
)
def test_text_outside_the_grammar_refuses(text: str) -> None:
    assert refused(projection_of(text)) is CutReason.UNCOVERED_TEXT


def test_a_sensitive_value_outside_the_owner_slot_refuses() -> None:
    text = record_text(CLEAN) + f"{OWNER} 3.1.2 clean - - - owner={OWNER}\n"
    assert refused(projection_of(text)) is CutReason.SENSITIVE_OUTSIDE_OWNER_SLOT


@pytest.mark.parametrize(
    "head",
    [
        "jinj\u0430 3.1.2 clean - - -",  # Cyrillic a
        "jin\u200bja2 3.1.2 clean - - -",  # zero-width space
        "jinja2 3.1.2 cle\u200dan - - -",  # zero-width joiner
        "\uff4ainja2 3.1.2 clean - - -",  # fullwidth j
    ],
)
def test_homoglyphs_and_invisible_characters_are_not_vocabulary(head: str) -> None:
    assert refused(projection_of(record_text(head))) is CutReason.UNCOVERED_TEXT


def test_an_invisible_character_in_the_owner_slot_refuses() -> None:
    assert refused(projection_of(record_text(CLEAN, owner="acme\u200b"))) is CutReason.UNCOVERED_TEXT


def test_a_vocabulary_file_with_a_homoglyph_is_refused() -> None:
    with pytest.raises(VocabularyError, match="plain ASCII"):
        ClosedVocabulary.from_mapping({"schema": "closed-vocabulary@1", "items": {"dependencies": ["jinj\u0430"]}})


@pytest.mark.parametrize("owner", ["jinja", "requests", "GHSA", "clean", "closed"])
def test_an_owner_value_that_also_appears_elsewhere_is_ambiguous(owner: str) -> None:
    assert refused(projection_of(record_text(JINJA, CLEAN, owner=owner))) is CutReason.AMBIGUOUS_SPAN


def test_the_owner_is_ambiguous_across_items_too() -> None:
    source = projection_of(record_text(JINJA, owner="jinja2x"), record_text(CLEAN, owner="jinja"))
    assert refused(source) is CutReason.AMBIGUOUS_SPAN


def test_labels_refuse_unknown_lineage_prohibited_categories_and_excess_ancestry() -> None:
    text = record_text(JINJA)
    unknown = projection_of(text, label=PrivatizationLabel.restricted_unknown())
    assert refused(unknown) is CutReason.UNKNOWN_LINEAGE
    customer = REPORT_LABEL.model_copy(update={"categories": frozenset({"customer-data"})})
    assert refused(projection_of(text, label=customer)) is CutReason.PROHIBITED_CATEGORY
    many = REPORT_LABEL.model_copy(update={"material_parents": frozenset(f"p{i}" for i in range(65))})
    assert refused(projection_of(text, label=many)) is CutReason.EXCESS_ANCESTRY


def test_a_plan_that_needs_the_owner_identity_refuses_as_lost_utility() -> None:
    source = projection_of(record_text(JINJA))
    assert refused(source, semantic_invariants=["dependencies", "owner-identity"]) is CutReason.LOST_UTILITY


def test_an_empty_projection_refuses() -> None:
    assert refused(CallProjection(())) is CutReason.EMPTY


class Disagreeing:
    """A censor that differs from the grammar: it edits the candidate after the real censor."""

    def __init__(self, edit: object) -> None:
        self.edit = edit
        self.name, self.revision, self.options_model, self.grammar = (
            PROFILE.name,
            1,
            PROFILE.options_model,
            PROFILE.grammar,
        )

    def propose(self, *args: object) -> object:
        return PROFILE.propose(*args)  # type: ignore[arg-type]

    def censor(
        self, source: CallProjection, plan: object, vocabulary: object, options: object, **kw: object
    ) -> Censored:
        honest = PROFILE.censor(source, plan, vocabulary, options, **kw)  # type: ignore[arg-type]
        texts = [self.edit(item.text) for item in honest.candidate.items]  # type: ignore[operator]
        candidate = source.replaced(texts)
        receipt = honest.receipts[-1].model_copy(update={"output_digest": candidate.digest})
        return Censored(candidate, (*honest.receipts[:-1], receipt))


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda t: t.replace("owner=<redacted>", f"owner={OWNER}", 1), CutReason.RECONSTRUCTION_MISMATCH),
        (lambda t: t.replace("<redacted>", "<gone>"), CutReason.RECONSTRUCTION_MISMATCH),
        (lambda t: t.replace("CVE-2024-22195", "-"), CutReason.LOST_UTILITY),
        (lambda t: "\n".join(t.split("\n")[:2]) + "\n", CutReason.LOST_UTILITY),
        (lambda t: t + "requests 2.31.0 clean - - - owner=<redacted>\n", CutReason.LOST_UTILITY),
    ],
)
def test_the_verifier_refuses_when_the_censor_disagrees(edit: object, reason: CutReason) -> None:
    source = report_projection()
    with pytest.raises(CutRefused) as caught:
        prepare_cut(Disagreeing(edit), source, plan_for(source), VOCABULARY, OPTIONS, SealAuthority(), now=NOW)  # type: ignore[arg-type]
    assert caught.value.reason is reason


def test_a_tampered_candidate_byte_fails_verification_and_seal() -> None:
    prepared = prepare(report_projection())
    text = prepared.candidate.items[0].text
    tampered = prepared.candidate.replaced([text.replace("3.1.3", "3.1.2", 1)])
    verification = verify_cut(
        source=prepared.source,
        candidate=tampered,
        plan=prepared.cut.plan,
        receipts=prepared.receipts,
        grammar=PROFILE.grammar,
        vocabulary=VOCABULARY,
        policy_digest=POLICY,
        now=NOW,
        transformer=PROFILE.pin,
    )
    assert verification.verdict == "fail" and verification.reason is CutReason.LOST_UTILITY
    with pytest.raises(CutRefused):
        SealAuthority().seal(
            source=prepared.source,
            candidate=tampered,
            plan=prepared.cut.plan,
            receipts=prepared.receipts,
            verification=prepared.verification,
            policy_digest=POLICY,
            now=NOW,
        )


def test_a_seal_needs_every_part_to_match() -> None:
    prepared = prepare(report_projection())
    authority = SealAuthority()
    parts = {
        "source": prepared.source,
        "candidate": prepared.candidate,
        "plan": prepared.cut.plan,
        "receipts": prepared.receipts,
        "verification": prepared.verification,
        "policy_digest": POLICY,
        "now": NOW,
    }
    assert authority.seal(**parts)  # type: ignore[arg-type]
    other = projection_of(record_text(CLEAN))
    for name, value in [
        ("source", other),
        ("candidate", other),
        ("plan", plan_for(prepared.source)),
        ("receipts", ()),
        ("policy_digest", "sha256:" + "1" * 64),
        ("now", NOW + 10_000),
    ]:
        with pytest.raises(CutRefused):
            authority.seal(**(parts | {name: value}))  # type: ignore[arg-type]
    failed = prepared.verification.model_copy(update={"verdict": "fail", "reason": CutReason.CHAIN_BROKEN})
    with pytest.raises(CutRefused):
        authority.seal(**(parts | {"verification": failed}))  # type: ignore[arg-type]


def gate_for(authority: SealAuthority) -> EgressGate:
    return EgressGate(EgressConfig(targets={"hosted": EgressTarget(max_class="internal")}), authority)


def test_the_gate_admits_the_sealed_candidate_though_its_source_is_refused() -> None:
    authority = SealAuthority()
    prepared = prepare(report_projection(), authority)
    gate = gate_for(authority)
    labels = {item.key: item.label for item in prepared.source.items}
    assert not gate.decide(labels, "hosted").admitted
    decision = gate.admit_sealed(
        prepared.cut, prepared.candidate, consumer_kind="model", consumer_id="hosted-llm",
        purpose="vulnerability-triage", now=NOW,
    )  # fmt: skip
    assert decision.admitted and decision.sealed_event == prepared.cut.event_id and decision.uses_left == 1
    assert decision.label.privacy_class is PrivacyClass.PRIVATE, "the label stays; the seal admits"


def test_substitution_replay_expiry_and_restart_refuse() -> None:
    from lychd_core.errors import SealReason, SealRefused

    authority = SealAuthority()
    prepared = prepare(report_projection(), authority)
    gate = gate_for(authority)
    ok = {"consumer_kind": "model", "consumer_id": "hosted-llm", "purpose": "vulnerability-triage", "now": NOW}

    def reason(
        cut: object = prepared.cut, candidate: CallProjection = prepared.candidate, **changes: object
    ) -> SealReason:
        with pytest.raises(SealRefused) as caught:
            gate.admit_sealed(cut, candidate, **(ok | changes))  # type: ignore[arg-type]
        return caught.value.reason

    assert reason(consumer_id="other-llm") is SealReason.CONSUMER_SUBSTITUTION
    assert reason(consumer_kind="service") is SealReason.CONSUMER_SUBSTITUTION
    assert reason(purpose="marketing") is SealReason.PURPOSE_SUBSTITUTION
    assert reason(target="local") is SealReason.TARGET_SUBSTITUTION
    assert reason(candidate=prepared.source) is SealReason.CANDIDATE_MISMATCH
    assert reason(now=NOW + 3600) is SealReason.EXPIRED
    first = gate.admit_sealed(prepared.cut, prepared.candidate, delivery_id="d1", **ok)  # type: ignore[arg-type]
    again = gate.admit_sealed(prepared.cut, prepared.candidate, delivery_id="d1", **ok)  # type: ignore[arg-type]
    assert again == first and first.uses_left == 1, "exact redelivery keeps the sealed namespace, using nothing"
    gate.admit_sealed(prepared.cut, prepared.candidate, delivery_id="d2", **ok)  # type: ignore[arg-type]
    assert reason() is SealReason.USES_EXHAUSTED
    restarted = gate_for(SealAuthority())
    with pytest.raises(SealRefused) as caught:
        restarted.admit_sealed(prepared.cut, prepared.candidate, **ok)  # type: ignore[arg-type]
    assert caught.value.reason is SealReason.NOT_SEALED, "a restart requires new preparation"
    plan = dataclasses.replace(prepared.cut, plan=plan_for(prepared.source, max_uses=1000))
    assert reason(cut=plan) is SealReason.NOT_SEALED, "a cut edited after sealing is not the sealed cut"


def test_floats_and_nan_never_enter_canonical_json_plans_or_reports() -> None:
    for value in (math.nan, math.inf, 1.5):
        with pytest.raises(TypeError, match="floats"):
            canonical_json({"expires_at": value})
    source = report_projection()
    with pytest.raises(DisclosurePlanError, match="expires_at"):
        plan_for(source, expires_at=NOW + 0.5)
    with pytest.raises(DisclosurePlanError, match="max_uses"):
        plan_for(source, max_uses=math.nan)


@pytest.mark.parametrize(
    "changes",
    [
        {"purpose": "Please triage the report for Acme Billing"},
        {"consumer_id": "acme billing"},
        {"semantic_invariants": ["everything"]},
        {"semantic_invariants": []},
        {"restricted_ref": "reports/pip-audit.json"},
        {"manifest_digest": "sha256:short"},
        {"max_uses": 0},
        {"consumer_kind": "person"},
        {"schema": "DisclosurePlan@2"},
        {"colour": "red"},
    ],
)
def test_bad_plans_are_refused_with_a_typed_error(changes: dict[str, object]) -> None:
    with pytest.raises(DisclosurePlanError):
        plan_for(report_projection(), **changes)


def test_a_plan_for_another_projection_or_expired_refuses() -> None:
    source = report_projection()
    other = projection_of(record_text(CLEAN))
    assert refused(source, manifest_digest=other.manifest_digest) is CutReason.PLAN_MISMATCH
    assert refused(source, expires_at=NOW) is CutReason.EXPIRED


def test_receipts_made_under_another_policy_refuse() -> None:
    source = projection_of(record_text(JINJA))
    plan = plan_for(source)
    honest = PROFILE.censor(source, plan, VOCABULARY, OPTIONS)
    stricter = ClosedDiagnosticOptions(max_parents=2)
    verification = verify_cut(
        source=source,
        candidate=honest.candidate,
        plan=plan,
        receipts=honest.receipts,
        grammar=PROFILE.grammar,
        vocabulary=VOCABULARY,
        policy_digest=cut_policy_digest(PROFILE.pin, stricter, PROFILE.grammar, VOCABULARY),
        now=NOW,
        transformer=PROFILE.pin,
    )
    assert verification.reason is CutReason.POLICY_MISMATCH
