"""Building a proposal that replaces whole sources, the way every compressor here does."""

from __future__ import annotations

from collections.abc import Sequence

from lychd_core.blocks import Omission
from lychd_core.families import CompactionProposal, CompactionRequest, CompactionSource, SourceRange
from lychd_core.vocabulary import ContextClass


def whole_sources_proposal(
    request: CompactionRequest,
    output_id: str,
    content: str,
    sources: Sequence[CompactionSource],
    invariants: tuple[str, ...],
    omissions: tuple[Omission, ...],
    context_class: ContextClass | None = None,
) -> CompactionProposal:
    ordered = sources if len(sources) == 1 else sorted(sources, key=lambda s: s.node_id)
    return CompactionProposal(
        output_id=output_id,
        policy_id=request.policy.id,
        policy_digest=request.policy.digest,
        content=content,
        ranges=tuple(SourceRange(s.node_id, 0, len(s.content)) for s in ordered),
        source_digests=tuple((s.node_id, s.digest) for s in ordered),
        invariants=invariants,
        omissions=omissions,
        context_class=context_class,
    )
