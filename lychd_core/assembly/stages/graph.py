"""Stage 3, build the graph: every input becomes a node of one context graph.

The ranked floor, memory evidence, the query, the continuation and an Execution
Projection are nodes; the required ones are reserved first (refused with the figures
when they cannot fit), then the newest history groups the governors could keep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lychd_core.assembly.bounds import AssemblyBounds, reserve_required
from lychd_core.assembly.context import Unexplained
from lychd_core.assembly.execution import ExecutionProjection, execution_nodes
from lychd_core.assembly.execution import required_chars as execution_required_chars
from lychd_core.assembly.floor import Floor
from lychd_core.assembly.nodes import (
    Tokens,
    continuation_node,
    floor_node,
    history_nodes_within,
    memory_node,
    query_node,
)
from lychd_core.graph import ContextNode
from lychd_core.history import Message, MessageGroup
from lychd_core.memory import MemoryEvidence
from lychd_core.ranking import RankedFloor
from lychd_core.vocabulary import Requirement

UNBOUNDED_SCAN = 1 << 62
"""With compression at a placement, history scanning stops at the turn window plus
``[compression] scan_groups``, not at the character cap: compressors may make more fit."""


@dataclass(frozen=True)
class CallInputs:
    """The non-floor inputs of one call, as the graph stage reads them."""

    query: str
    continuation_text: str
    memory: tuple[MemoryEvidence, ...]
    history: Sequence[Message]
    execution: ExecutionProjection | None


@dataclass(frozen=True)
class BuiltGraph:
    """Every candidate node (history last), the history groups they came from (newest first),
    the required characters reserved, and what never became a node."""

    floor: Floor
    nodes: tuple[ContextNode, ...]
    history_nodes: tuple[ContextNode, ...]
    history_groups: tuple[MessageGroup, ...]
    older: int
    """How many older history messages never became nodes."""
    required_chars: int
    unusable: tuple[Unexplained, ...]


def required_nodes(ranked: RankedFloor, call: CallInputs, tokens: Tokens) -> list[ContextNode]:
    nodes = [
        floor_node(p.block, required=p.required, chars_per_token=tokens, relevance=p.relevance, group=p.group)
        for p in ranked.placements
    ]
    nodes += [memory_node(m.node_id, m.text, m.token_estimate, tokens) for m in call.memory]
    nodes.append(query_node(call.query, tokens))
    if call.continuation_text:
        nodes.append(continuation_node(call.continuation_text, tokens))
    if call.execution is not None:
        nodes += execution_nodes(call.execution, tokens)
    return nodes


def required_parts(floor: Floor, call: CallInputs) -> dict[str, int]:
    """Required characters by part, as a budget refusal names them."""
    parts = floor.required_chars_by_layer()
    parts["query"] = len(call.query)
    parts["continuation"] = len(call.continuation_text)
    if call.execution is not None:
        parts["execution"] = execution_required_chars(call.execution)
    return parts


def build_graph(
    ranked: RankedFloor, call: CallInputs, bounds: AssemblyBounds, tokens: Tokens, *, scan_groups: int | None
) -> BuiltGraph:
    """The graph's nodes; ``scan_groups`` (compression at a placement) scans that many groups
    past the turn window, however long, since compressors may make them fit."""
    floor = Floor(ranked.placements)
    nodes = required_nodes(ranked, call, tokens)
    required_tokens = sum(node.token_estimate for node in nodes if node.requirement is Requirement.REQUIRED)
    required_chars = reserve_required(bounds, required_parts(floor, call), required_tokens)
    history_nodes, history_groups, older = history_nodes_within(
        () if call.execution is not None else call.history,
        bounds.turn_window + (scan_groups or 0),
        UNBOUNDED_SCAN if scan_groups is not None else bounds.char_cap - required_chars,
        tokens,
    )
    unusable: list[Unexplained] = []
    if call.execution is not None and call.history:
        unusable.append(Unexplained(f"history[0:{len(call.history)}]", f"replaced by {call.execution.placement}"))
    elif older:
        unusable.append(Unexplained(f"history[0:{older}]", "older than every group the governors can keep"))
    return BuiltGraph(
        floor,
        tuple(nodes + history_nodes),
        tuple(history_nodes),
        tuple(history_groups),
        older,
        required_chars,
        tuple(unusable),
    )
