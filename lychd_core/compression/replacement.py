"""Replacing validated sources by their derived nodes, for one model call's graph.

The sources leave this graph only: their owners keep them, unchanged and unlabelled
anew. Dependents are rewired to the derived node. Replacement refuses, changing
nothing, when the graph drifted since validation, a source is in a required node's
closure, two compactions claim one source or output id, or rewiring would form a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence

from lychd_core.compression.derived import renamed_dependencies
from lychd_core.compression.validation import ValidatedCompaction
from lychd_core.errors import (
    ExistingOutputIdError,
    GraphCycleError,
    GraphDriftError,
    MissingSourceError,
    RequiredSourceLostError,
    SelfSourceCycleError,
)
from lychd_core.graph import ContextGraph, ContextNode
from lychd_core.vocabulary import Requirement


def required_closure(graph: ContextGraph) -> set[int]:
    """Positions of every required node and everything it depends on."""
    arrays = graph.arrays
    required = Requirement.REQUIRED
    stack = [i for i, code in enumerate(arrays.requirement) if code == required]
    seen = set(stack)
    while stack:
        for dep in arrays.deps[stack.pop()]:
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    return seen


def replace(graph: ContextGraph, compactions: Sequence[ValidatedCompaction]) -> ContextGraph:
    """A new graph with each compaction's sources replaced by its derived node."""
    if not compactions:
        return graph
    owner: dict[str, ValidatedCompaction] = {}
    outputs: set[str] = set()
    for compaction in compactions:
        output = compaction.node.id
        if compaction.receipt.graph_digest != graph.digest:
            raise GraphDriftError(
                f"{output!r} was validated against graph {compaction.receipt.graph_digest}; "
                f"this graph is {graph.digest}. Validate again",
                output_id=output,
            )
        if output in outputs:
            raise ExistingOutputIdError(f"two compactions both create {output!r}", output_id=output)
        outputs.add(output)
        for node_id in compaction.replaced:
            if node_id in owner:
                raise MissingSourceError(
                    f"{output!r}: source {node_id!r} is already replaced by {owner[node_id].node.id!r}",
                    output_id=output,
                    node_id=node_id,
                )
            owner[node_id] = compaction
    protected = required_closure(graph)
    for node_id, compaction in owner.items():
        if graph.position(node_id) in protected:
            raise RequiredSourceLostError(
                f"{compaction.node.id!r}: source {node_id!r} is in the closure of a required node; "
                "replacing it would lose required material",
                output_id=compaction.node.id,
                node_id=node_id,
            )
    rename = {node_id: compaction.node.id for node_id, compaction in owner.items()}
    placed: set[str] = set()
    nodes: list[ContextNode] = []
    for node in graph.nodes:
        replacing = owner.get(node.id)
        if replacing is None:
            nodes.append(_rewired(node, rename))
        elif replacing.node.id not in placed:
            placed.add(replacing.node.id)
            nodes.append(_rewired(replacing.node, rename))
    try:
        return ContextGraph(nodes)
    except GraphCycleError as exc:
        output = next((node for node in exc.cycle if node in outputs), exc.cycle[0])
        raise SelfSourceCycleError(
            f"replacing would make {output!r} depend on itself: {' -> '.join(exc.cycle)}; "
            "compact a contiguous set of sources",
            output_id=output,
        ) from None


def _rewired(node: ContextNode, rename: dict[str, str]) -> ContextNode:
    deps = node.dependencies
    if len(deps) == 1:  # a history group depends on the next newer one only
        renamed = rename.get(deps[0])
        if renamed is None:
            return node
        return node.with_dependencies(() if renamed == node.id else (renamed,))
    if not any(dep in rename for dep in deps):
        return node
    return node.with_dependencies(renamed_dependencies(deps, rename, node.id))
