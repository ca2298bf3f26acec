"""One typed ``CompactionError`` per way a compaction can fail.

Each carries the offending ids as fields, so callers act on data, not on the sentence.
Nothing in a graph changes when one is raised.
"""

from __future__ import annotations

from lychd_core.errors.base import CompactionError


class ProposalError(CompactionError):
    """A proposal failed a check; ``output_id`` (and ``node_id``, when one source is at fault) name it."""

    def __init__(self, message: str, *, output_id: str, node_id: str | None = None) -> None:
        super().__init__(message)
        self.output_id = output_id
        self.node_id = node_id


class MalformedProposalError(ProposalError, TypeError):
    """The proposal is not a well-formed ``CompactionProposal`` (types, empty content, no sources)."""


class PolicyMismatchError(ProposalError):
    """The proposal names another policy (id or options digest) than the one that ran."""


class SelfSourceCycleError(ProposalError):
    """The output id is one of its own sources."""


class ExistingOutputIdError(ProposalError):
    """The output id already names a node of the graph."""


class MissingSourceError(ProposalError, LookupError):
    """A source is not a node of the graph."""


class SourceDigestMismatchError(ProposalError):
    """The lineage does not match the graph: a digest differs or sources and ranges disagree."""


class RangeBeyondContentError(ProposalError):
    """A range ends past its source's content."""


class EmptyRangeError(ProposalError):
    """A range has ``start >= end`` or a negative start."""


class OverlappingRangesError(ProposalError):
    """Ranges are not canonical: unsorted or overlapping within one source."""


class UnselectedSourceError(ProposalError):
    """A source is neither selected nor a candidate left out for lack of room."""


class HiddenSourceError(ProposalError):
    """A source is hidden from the plan's role."""


class ProtectedSourceError(ProposalError):
    """A source is protected material (policy, specification, query, continuation, required...)."""

    def __init__(self, message: str, *, output_id: str, node_id: str, protection: str) -> None:
        super().__init__(message, output_id=output_id, node_id=node_id)
        self.protection = protection


class MixedClassesError(ProposalError):
    """Sources of more than one context class."""


class NotSmallerError(ProposalError):
    """The derived node is not strictly smaller (tokens and characters) than what it replaces."""

    def __init__(self, message: str, *, output_id: str, tokens: tuple[int, int], chars: tuple[int, int]) -> None:
        super().__init__(message, output_id=output_id)
        self.tokens = tokens
        self.chars = chars


class ContentBoundError(ProposalError):
    """The proposed content exceeds the request's character bound."""


class RequiredSourceLostError(ProposalError):
    """Replacing a source would take it from the closure of a required node."""


class GraphDriftError(ProposalError):
    """The graph changed between validation and replacement."""


class CompressorFailedError(CompactionError):
    """A compressor (or the model a semantic compressor calls) raised or returned malformed output."""

    def __init__(self, message: str, *, policy_id: str) -> None:
        super().__init__(message)
        self.policy_id = policy_id
