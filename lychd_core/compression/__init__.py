"""Compression as explicit, validated derivation: proposals, validation, replacement, receipts."""

from lychd_core.compression.derived import derived_label, derived_trust, derived_visibility
from lychd_core.compression.errors import (
    CompressorFailedError,
    ContentBoundError,
    EmptyRangeError,
    ExistingOutputIdError,
    GraphDriftError,
    HiddenSourceError,
    MalformedProposalError,
    MissingSourceError,
    MixedClassesError,
    NotSmallerError,
    OverlappingRangesError,
    PolicyMismatchError,
    ProtectedSourceError,
    RangeBeyondContentError,
    RequiredSourceLostError,
    SelfSourceCycleError,
    SourceDigestMismatchError,
    UnselectedSourceError,
)
from lychd_core.compression.protection import PROTECTED_CLASSES, protection
from lychd_core.compression.receipts import CompactionReceipt
from lychd_core.compression.replacement import replace
from lychd_core.compression.validation import ValidatedCompaction, validate_proposal, validate_proposals

__all__ = [
    "PROTECTED_CLASSES",
    "CompactionReceipt",
    "CompressorFailedError",
    "ContentBoundError",
    "EmptyRangeError",
    "ExistingOutputIdError",
    "GraphDriftError",
    "HiddenSourceError",
    "MalformedProposalError",
    "MissingSourceError",
    "MixedClassesError",
    "NotSmallerError",
    "OverlappingRangesError",
    "PolicyMismatchError",
    "ProtectedSourceError",
    "RangeBeyondContentError",
    "RequiredSourceLostError",
    "SelfSourceCycleError",
    "SourceDigestMismatchError",
    "UnselectedSourceError",
    "ValidatedCompaction",
    "derived_label",
    "derived_trust",
    "derived_visibility",
    "protection",
    "replace",
    "validate_proposal",
    "validate_proposals",
]
