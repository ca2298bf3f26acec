"""Compression as explicit, validated derivation: proposals, validation, replacement, receipts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lychd_core.lazy import lazy_attribute

if TYPE_CHECKING:
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

_EXPORTS = {
    "lychd_core.compression.derived": "derived_label derived_trust derived_visibility",
    "lychd_core.compression.errors": (
        "CompressorFailedError ContentBoundError EmptyRangeError ExistingOutputIdError GraphDriftError "
        "HiddenSourceError MalformedProposalError MissingSourceError MixedClassesError NotSmallerError "
        "OverlappingRangesError PolicyMismatchError ProtectedSourceError RangeBeyondContentError "
        "RequiredSourceLostError SelfSourceCycleError SourceDigestMismatchError UnselectedSourceError"
    ),
    "lychd_core.compression.protection": "PROTECTED_CLASSES protection",
    "lychd_core.compression.receipts": "CompactionReceipt",
    "lychd_core.compression.replacement": "replace",
    "lychd_core.compression.validation": "ValidatedCompaction validate_proposal validate_proposals",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, name, _EXPORTS)


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
