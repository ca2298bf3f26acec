"""Privacy at egress: label rules, the egress gate, and the irreversible Privacy Cut."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lychd_core.lazy import lazy_attribute

if TYPE_CHECKING:
    from lychd_core.privacy.closed_vocabulary import ClosedVocabulary
    from lychd_core.privacy.egress import (
        EgressDecision,
        EgressRefused,
        Offender,
        contributors_label,
        decide_egress,
        label_problems,
        label_sources,
    )
    from lychd_core.privacy.errors import (
        CutReason,
        CutRefused,
        DisclosurePlanError,
        ReceiptError,
        SealReason,
        SealRefused,
        UnknownContributorError,
        UnknownTargetError,
        VocabularyError,
    )
    from lychd_core.privacy.gate import EgressGate
    from lychd_core.privacy.globs import compile_glob
    from lychd_core.privacy.grammar import FieldSpec, ParsedText, RecordGrammar, check_owners, parse_text
    from lychd_core.privacy.plan import DisclosurePlan, load_plan, local_ref
    from lychd_core.privacy.projection import CallProjection, ProjectionItem
    from lychd_core.privacy.receipts import OperationCount, TransformationReceipt, check_chain, next_receipt
    from lychd_core.privacy.rules import label_for, matching_rule
    from lychd_core.privacy.seal import PrivacyCut, SealAuthority
    from lychd_core.privacy.settings import LOCAL, EgressConfig, EgressTarget, LabelRule
    from lychd_core.privacy.verify import CutVerification, verify_cut

_EXPORTS = {
    "lychd_core.privacy.closed_vocabulary": "ClosedVocabulary",
    "lychd_core.privacy.egress": (
        "EgressDecision EgressRefused Offender contributors_label decide_egress label_problems label_sources"
    ),
    "lychd_core.privacy.errors": (
        "CutReason CutRefused DisclosurePlanError ReceiptError SealReason SealRefused UnknownContributorError "
        "UnknownTargetError VocabularyError"
    ),
    "lychd_core.privacy.gate": "EgressGate",
    "lychd_core.privacy.globs": "compile_glob",
    "lychd_core.privacy.grammar": "FieldSpec ParsedText RecordGrammar check_owners parse_text",
    "lychd_core.privacy.plan": "DisclosurePlan load_plan local_ref",
    "lychd_core.privacy.projection": "CallProjection ProjectionItem",
    "lychd_core.privacy.receipts": "OperationCount TransformationReceipt check_chain next_receipt",
    "lychd_core.privacy.rules": "label_for matching_rule",
    "lychd_core.privacy.seal": "PrivacyCut SealAuthority",
    "lychd_core.privacy.settings": "LOCAL EgressConfig EgressTarget LabelRule",
    "lychd_core.privacy.verify": "CutVerification verify_cut",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, name, _EXPORTS)


__all__ = [
    "LOCAL",
    "CallProjection",
    "ClosedVocabulary",
    "CutReason",
    "CutRefused",
    "CutVerification",
    "DisclosurePlan",
    "DisclosurePlanError",
    "EgressConfig",
    "EgressDecision",
    "EgressGate",
    "EgressRefused",
    "EgressTarget",
    "FieldSpec",
    "LabelRule",
    "Offender",
    "OperationCount",
    "ParsedText",
    "PrivacyCut",
    "ProjectionItem",
    "ReceiptError",
    "RecordGrammar",
    "SealAuthority",
    "SealReason",
    "SealRefused",
    "TransformationReceipt",
    "UnknownContributorError",
    "UnknownTargetError",
    "VocabularyError",
    "check_chain",
    "check_owners",
    "compile_glob",
    "contributors_label",
    "decide_egress",
    "label_for",
    "label_problems",
    "label_sources",
    "load_plan",
    "local_ref",
    "matching_rule",
    "next_receipt",
    "parse_text",
    "verify_cut",
]
