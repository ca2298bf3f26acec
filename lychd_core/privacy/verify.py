"""The independent verifier: re-parse, reconstruct, check utility, plan and chain; emit ``CutVerification@1``.

It shares no code with a profile's censor: it reads the profile's declared grammar
and parses both texts itself, so a censor that disagrees with the grammar fails here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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


def _check_no_owner_outside_text(strings: list[str], owners: SubstringSet) -> None:
    """No owner value in a key or label: they reach ``--json``, stored chains and reprs verbatim."""
    if owners.occurs_in_any(strings):
        raise CutRefused(
            CutReason.SENSITIVE_OUTSIDE_OWNER_SLOT,
            "an owner value stands in an item's key or label (a file name, a material parent?)",
        )


@dataclass(frozen=True, slots=True)
class _Cut:
    """One verification's inputs, as :func:`verify_cut` received them, and the digests it computed."""

    source: CallProjection
    candidate: CallProjection
    plan: DisclosurePlan
    receipts: Sequence[TransformationReceipt]
    grammar: RecordGrammar
    vocabulary: ClosedVocabulary
    policy_digest: str
    source_digest: str
    candidate_digest: str
    now: int
    origin_digest: str | None
    reversal: ReversalSpec | None
    transformer: str
    chain: Sequence[TransformationReceipt]


def _terminal_receipt(cut: _Cut, records: int) -> TransformationReceipt:
    """The cut's receipt as the verifier derives it: every field from the cut, none from the censor."""
    operation = "pseudonymize" if cut.reversal is not None else "redact"
    counted = OperationCount(operation=operation, category=cut.grammar.owner_category, count=records)
    return next_receipt(
        cut.chain,
        plan_digest=cut.plan.digest,
        input_digest=cut.source_digest,
        output_digest=cut.candidate_digest,
        transformer=cut.transformer,
        policy_digest=cut.policy_digest,
        operations=[counted] if records else [],
        residual_label_digest=json_digest(cut.candidate.label.to_json()),
        expires_at=cut.plan.expires_at,
        terminal=True,
    )


def _check_plan(cut: _Cut) -> None:
    """The plan covers this projection, now, and every category the candidate pseudonymizes."""
    if not cut.source.items:
        raise CutRefused(CutReason.EMPTY, "the projection has no items")
    if cut.plan.manifest_digest != cut.source.manifest_digest or cut.now >= cut.plan.expires_at:
        reason = CutReason.EXPIRED if cut.now >= cut.plan.expires_at else CutReason.PLAN_MISMATCH
        raise CutRefused(reason, "the plan does not cover this projection now")
    if cut.reversal is not None and set(cut.reversal.categories) - set(cut.plan.reversible_categories):
        raise CutRefused(CutReason.PLAN_MISMATCH, "the plan does not mark every pseudonymized category reversible")


def _check_grammar(cut: _Cut) -> list[ParsedText]:
    """The candidate has the source's items, keys and labels; every source text parses; no owner
    value stands outside a text."""
    source, candidate = cut.source.items, cut.candidate.items
    if len(source) != len(candidate) or any(
        (s.section, s.key, s.label) != (c.section, c.key, c.label) for s, c in zip(source, candidate, strict=True)
    ):
        raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, "the candidate's items, keys or labels differ")
    parsed = [
        parse_text(s.text, cut.grammar, cut.vocabulary, where=f"{s.section}[{s.key}]", candidate=False) for s in source
    ]
    strings = [text for item in cut.candidate.items for text in _item_strings(item)]
    _check_no_owner_outside_text(strings, owner_matcher(parsed, cut.grammar, cut.vocabulary, also=strings)[1])
    return parsed


def _check_utility(cut: _Cut, parsed: list[ParsedText]) -> None:
    """The plan needs only what the cut carries, and the candidate is exactly the source with owner
    spans redacted (or pseudonymized by the named lease): every fixed position survives."""
    grammar, reversal = cut.grammar, cut.reversal
    carried = {spec.invariant for spec in grammar.fields}
    if reversal is not None and grammar.owner_category in reversal.categories:
        carried.add("owner-identity")  # a one-to-one token keeps the identity and restores it locally
    if set(cut.plan.semantic_invariants) - carried:
        raise CutRefused(CutReason.LOST_UTILITY, "the plan needs what this cut removes (the owner identity)")
    pairs = list(zip(cut.source.items, cut.candidate.items, strict=True))
    if reversal is not None:
        check_reversal([s.text for s, _ in pairs], [c.text for _, c in pairs], grammar, reversal, where="candidate")
        return
    for (s, c), p in zip(pairs, parsed, strict=True):
        if not grammar.redacts_to(s.text, c.text):
            _name_the_difference(c.text, p, grammar, cut.vocabulary, where=f"candidate {c.section}[{c.key}]")


def _check_chain(cut: _Cut) -> tuple[str, ...]:
    """The receipts link source to candidate under this plan and policy, unexpired; their digests."""
    receipts = cut.receipts
    digests = check_chain(
        receipts,
        source_digest=cut.origin_digest or cut.source_digest,
        candidate_digest=cut.candidate_digest,
        plan_digest=cut.plan.digest,
    )
    if cut.origin_digest is not None and cut.source_digest not in {r.output_digest for r in receipts[:-1]}:
        raise CutRefused(CutReason.CHAIN_BROKEN, "no stage of the chain produced the verified source")
    if any(r.policy_digest != cut.policy_digest for r in receipts):
        raise CutRefused(CutReason.POLICY_MISMATCH, "a receipt was made under another policy")
    if receipts[-1].residual_label_digest != json_digest(cut.candidate.label.to_json()):
        raise CutRefused(CutReason.CHAIN_BROKEN, "the terminal receipt's residual label is not the candidate's")
    if any(cut.now >= r.expires_at for r in receipts):
        raise CutRefused(CutReason.EXPIRED, "a receipt has expired")
    return digests


def _check(checks: list[str], cut: _Cut) -> tuple[str, ...]:
    """Run every check in order, naming each in ``checks`` once it has passed."""
    _check_plan(cut)
    checks.append("plan")
    if any(not item.label.lineage_known for item in cut.source.items):
        raise CutRefused(CutReason.UNKNOWN_LINEAGE, "a projection item has unknown lineage")
    checks.append("lineage")
    parsed = _check_grammar(cut)
    checks.append("grammar")
    _check_utility(cut, parsed)
    # An exact reconstruction keeps every fixed position of every record: utility survives.
    checks.extend(("utility", "reconstruction"))
    digests = _check_chain(cut)
    checks.append("chain")
    check_derived(cut.receipts, (*cut.chain, _terminal_receipt(cut, sum(len(p.records) for p in parsed))))
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
        cut = _Cut(
            source, candidate, plan, receipts, grammar, vocabulary, policy_digest, source_digest,
            candidate_digest, now, origin_digest, reversal, transformer, chain,
        )  # fmt: skip
        digests = _check(checks, cut)
    except CutRefused as refusal:
        detail = str(refusal).removeprefix(f"{refusal.reason.value}: ")
        return CutVerification(verdict="fail", reason=refusal.reason, detail=detail, checks=tuple(checks), **common)
    return CutVerification(verdict="pass", receipt_digests=digests, checks=tuple(checks), **common)
