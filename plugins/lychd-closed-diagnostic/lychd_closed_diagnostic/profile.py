"""The ``closed-diagnostic`` privacy profile, revision 1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lychd_closed_diagnostic.censor import GRAMMAR, OWNER_CATEGORY, censor_texts, check_labels, findings
from lychd_closed_diagnostic.pip_audit import PipAuditImporter
from lychd_core.digests import json_digest
from lychd_core.errors import CutReason, CutRefused, PrivacyRefusal
from lychd_core.families import PrivacyFinding
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy import (
    CallProjection,
    ClosedVocabulary,
    DisclosurePlan,
    OperationCount,
    RecordGrammar,
    TransformationReceipt,
    next_receipt,
)
from lychd_core.privacy.prepare import Censored, ReportImporter, cut_policy_digest


class ClosedDiagnosticOptions(BaseModel):
    """Options of ``closed-diagnostic@1``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allowed_categories: tuple[str, ...] = Field(
        default=("diagnostic", "vulnerability-report"),
        description="Label categories a projection may carry; any other refuses preparation.",
    )
    max_parents: int = Field(default=64, ge=1, strict=True, description="Most material parents a projection joins.")
    vocabulary: str | None = Field(
        default=None, description="Vocabulary file used by propose(); preparation is handed its vocabulary."
    )


class ClosedDiagnosticProfile:
    """Accepts only closed diagnostic records; redacts the owner slot; classifies nothing else."""

    name = "closed-diagnostic"
    revision = 1
    options_model = ClosedDiagnosticOptions
    grammar: RecordGrammar = GRAMMAR
    importers: Mapping[str, ReportImporter] = MappingProxyType({"pip-audit": PipAuditImporter()})

    @property
    def pin(self) -> str:
        return f"{self.name}@{self.revision}"

    def propose(
        self, text: str, label: PrivatizationLabel, options: ClosedDiagnosticOptions
    ) -> tuple[PrivacyFinding, ...]:
        """Owner spans of one text, or a typed refusal; there is no detector fallback."""
        if options.vocabulary is None:
            raise PrivacyRefusal("closed-diagnostic@1 needs a vocabulary file (option 'vocabulary') to check text")
        check_labels([label], frozenset(options.allowed_categories), options.max_parents)
        return findings(text, ClosedVocabulary.load(Path(options.vocabulary)))

    def censor(
        self,
        source: CallProjection,
        plan: DisclosurePlan,
        vocabulary: ClosedVocabulary,
        options: BaseModel,
        *,
        chain: Sequence[TransformationReceipt] = (),
    ) -> Censored:
        """The irreversible candidate and this stage's terminal receipt, appended to ``chain``."""
        if not isinstance(options, ClosedDiagnosticOptions):
            raise PrivacyRefusal(f"closed-diagnostic@1 takes ClosedDiagnosticOptions, got {type(options).__name__}")
        if not source.items:
            raise CutRefused(CutReason.EMPTY, "the projection has no items")
        check_labels([item.label for item in source.items], frozenset(options.allowed_categories), options.max_parents)
        if "owner-identity" in plan.semantic_invariants:
            raise CutRefused(CutReason.LOST_UTILITY, "the plan needs the owner identity, which this cut removes")
        texts, redacted = censor_texts(source, vocabulary)
        candidate = source.replaced(texts)
        policy = cut_policy_digest(self.pin, options, GRAMMAR, vocabulary)
        return censored_with_receipt(source, candidate, plan, chain, self.pin, policy, "redact", redacted)


def censored_with_receipt(
    source: CallProjection,
    candidate: CallProjection,
    plan: DisclosurePlan,
    chain: Sequence[TransformationReceipt],
    pin: str,
    policy: str,
    operation: Literal["redact", "pseudonymize"],
    count: int,
) -> Censored:
    """The candidate with the terminal receipt of this cut appended to ``chain``."""
    operations = (OperationCount(operation=operation, category=OWNER_CATEGORY, count=count),) if count else ()
    receipt = next_receipt(
        chain,
        plan_digest=plan.digest,
        input_digest=source.digest,
        output_digest=candidate.digest,
        transformer=pin,
        policy_digest=policy,
        operations=operations,
        residual_label_digest=json_digest(candidate.label.to_json()),
        expires_at=plan.expires_at,
        terminal=True,
    )
    return Censored(candidate, (*chain, receipt))


PROFILE = ClosedDiagnosticProfile()
