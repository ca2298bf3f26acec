"""Typed refusals of the privacy stage; each carries a reason code a program can act on."""

from __future__ import annotations

from enum import StrEnum

from lychd_core.errors import LychdError, PrivacyRefusal


class CutReason(StrEnum):
    """Why preparing, verifying or sealing a Privacy Cut was refused."""

    UNCOVERED_TEXT = "uncovered-text"
    SENSITIVE_OUTSIDE_OWNER_SLOT = "sensitive-outside-owner-slot"
    AMBIGUOUS_SPAN = "ambiguous-span"
    UNKNOWN_LINEAGE = "unknown-lineage"
    PROHIBITED_CATEGORY = "prohibited-category"
    EXCESS_ANCESTRY = "excess-ancestry"
    LOST_UTILITY = "lost-utility"
    RECONSTRUCTION_MISMATCH = "reconstruction-mismatch"
    CHAIN_BROKEN = "chain-broken"
    RECEIPT_MISMATCH = "receipt-mismatch"
    PLAN_MISMATCH = "plan-mismatch"
    VERDICT_FAILED = "verdict-failed"
    POLICY_MISMATCH = "policy-mismatch"
    EXPIRED = "expired"
    EMPTY = "empty"
    TOO_LARGE = "too-large"


class SealReason(StrEnum):
    """Why a sealed candidate was refused at egress."""

    NOT_SEALED = "not-sealed"
    CANDIDATE_MISMATCH = "candidate-mismatch"
    TARGET_SUBSTITUTION = "target-substitution"
    CONSUMER_SUBSTITUTION = "consumer-substitution"
    PURPOSE_SUBSTITUTION = "purpose-substitution"
    EXPIRED = "expired"
    USES_EXHAUSTED = "uses-exhausted"


class CutRefused(PrivacyRefusal):
    """Preparing, verifying or sealing a cut was refused; ``reason`` says why.

    Messages name positions and kinds, never the sensitive value itself.
    """

    def __init__(self, reason: CutReason, message: str) -> None:
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason


class SealRefused(PrivacyRefusal):
    """A sealed candidate may not pass to this target now; ``reason`` says why."""

    def __init__(self, reason: SealReason, message: str) -> None:
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason


class UnknownTargetError(LychdError, LookupError):
    """A call names an egress target the configuration does not define."""


class UnknownContributorError(LychdError, LookupError):
    """A producer named a contributor that is not a node of the context."""


class DisclosurePlanError(LychdError, ValueError):
    """A DisclosurePlan@1 is malformed or embeds what it must not."""


class VocabularyError(LychdError, ValueError):
    """A closed public vocabulary file is malformed or holds a non-canonical item."""


class ReceiptError(LychdError, ValueError):
    """A TransformationReceipt@1 is malformed (wrong schema, digest, count)."""
