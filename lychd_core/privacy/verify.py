"""The independent verifier: re-parse, reconstruct, check utility, plan and chain; emit ``CutVerification@1``.

It shares no code with a profile's censor: it reads the profile's declared grammar
and parses both texts itself, so a censor that disagrees with the grammar fails here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lychd_core.digests import json_digest
from lychd_core.errors import CutReason, CutRefused
from lychd_core.privacy.closed_vocabulary import ClosedVocabulary
from lychd_core.privacy.grammar import ParsedText, RecordGrammar, owner_matcher, parse_text
from lychd_core.privacy.matching import SubstringSet
from lychd_core.privacy.plan import DisclosurePlan
from lychd_core.privacy.projection import CallProjection, ProjectionItem
from lychd_core.privacy.pseudonyms import ReversalSpec, check_reversal
from lychd_core.privacy.receipts import (
    OperationCount,
    TransformationReceipt,
    check_chain,
    check_derived,
    next_receipt,
)

VERIFIER = "lychd-core-verifier@1"


class CutVerification(BaseModel):
    """The verifier's verdict over one source, candidate, plan and receipt chain."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_name: Literal["CutVerification@1"] = Field(default="CutVerification@1", alias="schema")
    verifier: str = VERIFIER
    grammar: str
    verdict: Literal["pass", "fail"]
    reason: CutReason | None = None
    detail: str = ""
    source_digest: str
    candidate_digest: str
    plan_digest: str
    policy_digest: str
    vocabulary_digest: str
    receipt_digests: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    expires_at: int
    reversal: ReversalSpec | None = Field(
        default=None, description="The lease whose tokens a reversible candidate carries (none: irreversible)."
    )

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", by_alias=True)
        if self.reversal is None:
            del data["reversal"]  # an irreversible verdict keeps its digest
        return data

    @property
    def digest(self) -> str:
        return json_digest(self.to_json())

    def require(self) -> CutVerification:
        """This verification if it passed; else the typed refusal it records."""
        if self.verdict != "pass":
            raise CutRefused(self.reason or CutReason.VERDICT_FAILED, self.detail or "the verifier did not pass")
        return self


def _name_the_difference(
    text: str, source: ParsedText, grammar: RecordGrammar, vocabulary: ClosedVocabulary, *, where: str
) -> None:
    """Refuse a candidate that is not the redacted source: lost utility when a record's fixed
    positions differ, else a reconstruction mismatch (only on the refusal path)."""
    try:
        survived = parse_text(text, grammar, vocabulary, where=where, candidate=True)
    except CutRefused as refusal:
        raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, str(refusal).split(": ", 1)[1]) from None
    if survived.columns != source.columns:
        raise CutRefused(CutReason.LOST_UTILITY, "a dependency, status, diagnostic or citation did not survive")
    raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, "the candidate is not the source with owner spans redacted")


def _item_strings(item: ProjectionItem) -> list[str]:
    """Everything of an item but its text that reaches output: its key and every string of its label."""
    label = item.label
    return [item.section, item.key, *label.categories, *label.subjects, *label.material_parents,
            *label.handling_constraints]  # fmt: skip


def _check_no_owner_outside_text(candidate: CallProjection, owners: SubstringSet) -> None:
    """No owner value in a key or label: they reach ``--json``, stored chains and reprs verbatim."""
    if owners.occurs_in_any([text for item in candidate.items for text in _item_strings(item)]):
        raise CutRefused(
            CutReason.SENSITIVE_OUTSIDE_OWNER_SLOT,
            "an owner value stands in an item's key or label (a file name, a material parent?)",
        )


def _terminal_receipt(
    chain: Sequence[TransformationReceipt],
    *,
    plan: DisclosurePlan,
    source_digest: str,
    candidate: CallProjection,
    transformer: str,
    policy_digest: str,
    grammar: RecordGrammar,
    records: int,
    reversible: bool,
) -> TransformationReceipt:
    """The cut's receipt as the verifier derives it: every field from the cut, none from the censor."""
    operation = "pseudonymize" if reversible else "redact"
    counted = OperationCount(operation=operation, category=grammar.owner_category, count=records) if records else None
    operations = [counted] if counted else []
    return next_receipt(
        chain,
        plan_digest=plan.digest,
        input_digest=source_digest,
        output_digest=candidate.digest,
        transformer=transformer,
        policy_digest=policy_digest,
        operations=operations,
        residual_label_digest=json_digest(candidate.label.to_json()),
        expires_at=plan.expires_at,
        terminal=True,
    )


def _check(
    checks: list[str],
    source: CallProjection,
    candidate: CallProjection,
    plan: DisclosurePlan,
    receipts: Sequence[TransformationReceipt],
    grammar: RecordGrammar,
    vocabulary: ClosedVocabulary,
    policy_digest: str,
    source_digest: str,
    candidate_digest: str,
    now: int,
    origin_digest: str | None,
    reversal: ReversalSpec | None,
    transformer: str,
    chain: Sequence[TransformationReceipt],
) -> tuple[str, ...]:
    if not source.items:
        raise CutRefused(CutReason.EMPTY, "the projection has no items")
    if plan.manifest_digest != source.manifest_digest or now >= plan.expires_at:
        reason = CutReason.EXPIRED if now >= plan.expires_at else CutReason.PLAN_MISMATCH
        raise CutRefused(reason, "the plan does not cover this projection now")
    if reversal is not None and set(reversal.categories) - set(plan.reversible_categories):
        raise CutRefused(CutReason.PLAN_MISMATCH, "the plan does not mark every pseudonymized category reversible")
    checks.append("plan")
    if any(not item.label.lineage_known for item in source.items):
        raise CutRefused(CutReason.UNKNOWN_LINEAGE, "a projection item has unknown lineage")
    checks.append("lineage")
    pairs = list(zip(source.items, candidate.items, strict=False))
    if len(source.items) != len(candidate.items) or any(
        (s.section, s.key, s.label) != (c.section, c.key, c.label) for s, c in pairs
    ):
        raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, "the candidate's items, keys or labels differ")
    parsed = [parse_text(s.text, grammar, vocabulary, where=f"{s.section}[{s.key}]", candidate=False) for s, _ in pairs]
    _check_no_owner_outside_text(candidate, owner_matcher(parsed, grammar, vocabulary)[1])
    checks.append("grammar")
    carried = {spec.invariant for spec in grammar.fields}
    if reversal is not None and grammar.owner_category in reversal.categories:
        carried.add("owner-identity")  # a one-to-one token keeps the identity and restores it locally
    if set(plan.semantic_invariants) - carried:
        raise CutRefused(CutReason.LOST_UTILITY, "the plan needs what this cut removes (the owner identity)")
    if reversal is not None:
        check_reversal([s.text for s, _ in pairs], [c.text for _, c in pairs], grammar, reversal, where="candidate")
    else:
        for (s, c), p in zip(pairs, parsed, strict=True):
            if grammar.redacted(s.text) != c.text:
                _name_the_difference(c.text, p, grammar, vocabulary, where=f"candidate {c.section}[{c.key}]")
    # An exact reconstruction keeps every fixed position of every record: utility survives.
    checks.append("utility")
    checks.append("reconstruction")
    digests = check_chain(
        receipts,
        source_digest=origin_digest or source_digest,
        candidate_digest=candidate_digest,
        plan_digest=plan.digest,
    )
    if origin_digest is not None and source_digest not in {r.output_digest for r in receipts[:-1]}:
        raise CutRefused(CutReason.CHAIN_BROKEN, "no stage of the chain produced the verified source")
    if any(r.policy_digest != policy_digest for r in receipts):
        raise CutRefused(CutReason.POLICY_MISMATCH, "a receipt was made under another policy")
    if receipts[-1].residual_label_digest != json_digest(candidate.label.to_json()):
        raise CutRefused(CutReason.CHAIN_BROKEN, "the terminal receipt's residual label is not the candidate's")
    if any(now >= r.expires_at for r in receipts):
        raise CutRefused(CutReason.EXPIRED, "a receipt has expired")
    checks.append("chain")
    terminal = _terminal_receipt(
        chain, plan=plan, source_digest=source_digest, candidate=candidate, transformer=transformer,
        policy_digest=policy_digest, grammar=grammar, records=sum(len(p.records) for p in parsed),
        reversible=reversal is not None,
    )  # fmt: skip
    check_derived(receipts, (*chain, terminal))
    checks.append("receipts")
    return digests


def verify_cut(
    *,
    source: CallProjection,
    candidate: CallProjection,
    plan: DisclosurePlan,
    receipts: Sequence[TransformationReceipt],
    grammar: RecordGrammar,
    vocabulary: ClosedVocabulary,
    policy_digest: str,
    now: int,
    transformer: str,
    chain: Sequence[TransformationReceipt] = (),
    origin_digest: str | None = None,
    reversal: ReversalSpec | None = None,
) -> CutVerification:
    """Check everything a seal depends on; the verdict is ``fail`` with a typed reason on any mismatch.

    Every field of every receipt is attested, not merely digest-linked: ``transformer`` is
    the pin of the profile that must have made the cut, and ``chain`` the receipts of the
    stages before it (an importer) as the caller derived them again from their own input;
    the verifier derives the cut's terminal receipt itself and requires ``receipts`` to be
    exactly ``chain`` plus that receipt, field by field.

    ``origin_digest`` is where the chain starts when stages before the cut (an importer)
    produced ``source``: one of them must output exactly the verified source. ``reversal``
    names the lease whose tokens stand in the owner slots of a reversible candidate.
    """
    source_digest = source.digest
    candidate_digest = candidate.digest
    checks: list[str] = []
    common: dict[str, Any] = {
        "grammar": grammar.name,
        "source_digest": source_digest,
        "candidate_digest": candidate_digest,
        "plan_digest": plan.digest,
        "policy_digest": policy_digest,
        "vocabulary_digest": vocabulary.digest,
        "expires_at": min([plan.expires_at, *(r.expires_at for r in receipts)]),
        "reversal": reversal,
    }
    try:
        digests = _check(
            checks, source, candidate, plan, receipts, grammar, vocabulary, policy_digest, source_digest,
            candidate_digest, now, origin_digest, reversal, transformer, chain,
        )  # fmt: skip
    except CutRefused as refusal:
        detail = str(refusal).removeprefix(f"{refusal.reason.value}: ")
        return CutVerification(verdict="fail", reason=refusal.reason, detail=detail, checks=tuple(checks), **common)
    return CutVerification(verdict="pass", receipt_digests=digests, checks=tuple(checks), **common)
