"""The ``closed-diagnostic`` privacy profile, revision 1."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from lychd_core.errors import CutReason, CutRefused, PrivacyRefusal

if TYPE_CHECKING:
    from lychd_core.families import PrivacyFinding
    from lychd_core.labels import PrivatizationLabel
    from lychd_core.privacy import (
        CallProjection,
        ClosedVocabulary,
        DisclosurePlan,
        RecordGrammar,
        TransformationReceipt,
    )
    from lychd_core.privacy.prepare import Censored, ReportImporter

# The grammar, the censor, the importer and the Privacy Cut load when a profile is used, not
# when plugins load: every ``lychd`` command registers this profile (issue 30).


@functools.cache
def _importers() -> Mapping[str, ReportImporter]:
    from lychd_closed_diagnostic.pip_audit import PipAuditImporter

    return MappingProxyType({"pip-audit": PipAuditImporter()})


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

    @property
    def grammar(self) -> RecordGrammar:
        from lychd_closed_diagnostic.censor import GRAMMAR

        return GRAMMAR

    @property
    def importers(self) -> Mapping[str, ReportImporter]:
        return _importers()

    @property
    def pin(self) -> str:
        return f"{self.name}@{self.revision}"

    def propose(
        self, text: str, label: PrivatizationLabel, options: ClosedDiagnosticOptions
    ) -> tuple[PrivacyFinding, ...]:
        """Owner spans of one text, or a typed refusal; there is no detector fallback."""
        from lychd_closed_diagnostic.censor import check_labels, findings
        from lychd_core.privacy import ClosedVocabulary

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
        from lychd_closed_diagnostic.censor import GRAMMAR, censor_texts, check_labels
        from lychd_core.privacy.prepare import cut_policy_digest

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
    from lychd_closed_diagnostic.censor import OWNER_CATEGORY
    from lychd_core.digests import json_digest
    from lychd_core.privacy import OperationCount, next_receipt
    from lychd_core.privacy.prepare import Censored

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
