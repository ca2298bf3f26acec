"""The derived node a valid proposal becomes: its trust, visibility, label and place.

Derivation never raises authority or trust and never lowers privacy influence:
authority is non-authoritative; trust is ``trusted`` only when every source is trusted
and the policy preserves trust, else ``untrusted``; visibility is the intersection of
the sources'; the label is the join of the sources' labels.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from lychd_core.compression.memo import ProposalMemo
from lychd_core.families import CompactionPolicy, CompactionProposal
from lychd_core.graph import ContextNode
from lychd_core.labels import PrivatizationLabel, join_labels
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement, Trust

UNKNOWN = PrivatizationLabel.restricted_unknown()
"""The label of a source nobody labelled: restricted, lineage unknown."""


def derived_trust(sources: Iterable[ContextNode], preserves_trust: bool) -> Trust:
    if preserves_trust and all(node.trust is Trust.TRUSTED for node in sources):
        return Trust.TRUSTED
    return Trust.UNTRUSTED


def derived_visibility(sources: Iterable[ContextNode]) -> frozenset[str] | None:
    """Roles that see every source (``None``: every role)."""
    result: frozenset[str] | None = None
    for node in sources:
        if node.visible_to is not None:
            result = node.visible_to if result is None else result & node.visible_to
    return result


def derived_label(source_ids: Iterable[str], labels: Mapping[str, PrivatizationLabel]) -> PrivatizationLabel:
    """Join of the sources' labels; a source without one counts as restricted, lineage unknown."""
    found = [labels.get(node_id, UNKNOWN) for node_id in source_ids]
    if all(label is found[0] for label in found):
        return found[0]  # the join of one label with itself is itself (labels are immutable)
    return join_labels(found)


def renamed_dependencies(dependencies: Iterable[str], renamed: Mapping[str, str], node_id: str) -> tuple[str, ...]:
    """``dependencies`` with each replaced source named by the node that replaces it, sorted and
    unique; a node never depends on itself (its own sources are inside it)."""
    return tuple(sorted({renamed.get(dep, dep) for dep in dependencies} - {node_id}))


DerivedFacts = tuple[Trust, ContextClass, Requirement, int, int, frozenset[str] | None, tuple[str, ...], int]
"""Every field of a derived node that its proposal does not give: trust, class, requirement,
priority, recency, visibility, dependencies and tokens."""

DERIVED: ProposalMemo[tuple[DerivedFacts, ContextNode]] = ProposalMemo()
"""Each proposal's derived node and the facts it was built from, while the proposal lives: a
settled group's proposal offered again at the next model call, with the same facts, is the
same node, not checked and hashed again. Kept under issue 26's rule: with it
``benchmarks/bench_compression.py --full`` reads 1.68x settled against 1.92x without (medians
of ten alternated runs; 7% fewer instructions per compressed call)."""


def derived_node(
    proposal: CompactionProposal,
    sources: tuple[ContextNode, ...],
    policy: CompactionPolicy,
    chars_per_token: int,
    labels: Mapping[str, PrivatizationLabel],
    count: Callable[[str], int] | None = None,
    renamed: Mapping[str, str] | None = None,
) -> tuple[ContextNode, PrivatizationLabel]:
    """The checked derived node and its label. It takes the place of its sources: their
    requirement, priority and recency (the highest), the roles that see them all, and their
    dependencies outside them, each source that ``renamed`` holds (one an earlier proposal of
    the batch replaces) named by its replacement, so replacing need not build the node again.
    Its tokens are ``count``'s (the configured counter, as its sources'), else
    ceil(chars / chars_per_token)."""
    content = proposal.content
    token_estimate = max(1, -(-len(content) // chars_per_token) if count is None else count(content))
    if len(sources) == 1:  # the common case (one elided group, one outline): in its source's place
        (only,) = sources
        ids: Sequence[str] = (only.id,)
        requirement, priority, recency, visible_to = only.requirement, only.priority, only.recency, only.visible_to
        outside: Iterable[str] = only.dependencies
    else:
        ids = sorted({node.id for node in sources})
        requirement = max(node.requirement for node in sources)
        priority = max(node.priority for node in sources)
        recency = max(node.recency for node in sources)
        visible_to = derived_visibility(sources)
        outside = {dep for node in sources for dep in node.dependencies} - set(ids)
    trust = derived_trust(sources, policy.preserves_trust)
    context_class = proposal.context_class or sources[0].context_class
    dependencies = renamed_dependencies(outside, renamed or {}, proposal.output_id)
    facts = (trust, context_class, requirement, priority, recency, visible_to, dependencies, token_estimate)
    held = DERIVED.get(proposal)
    if held is not None and held[0] == facts:
        return held[1], derived_label(ids, labels)
    node = ContextNode(
        id=proposal.output_id,
        content=content,
        provenance=Provenance.DERIVED_COMPACTION,
        authority=Authority.NON_AUTHORITATIVE,
        trust=trust,
        context_class=context_class,
        requirement=requirement,
        priority=priority,
        token_estimate=token_estimate,
        recency=recency,
        visible_to=visible_to,
        dependencies=dependencies,
    )
    DERIVED.put(proposal, (facts, node))
    return node, derived_label(ids, labels)
