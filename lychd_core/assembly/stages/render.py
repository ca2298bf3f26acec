"""Stage 6, render: what the plan selected, in the order the model reads it, with the
label of every node and the figures an ``AssembledContext`` reports.

A derived (compressed) node renders in place of the first of its sources; an Execution
Projection renders in place of settled history.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lychd_core.assembly.bounds import AssemblyBounds
from lychd_core.assembly.context import AssembledContext, Unexplained
from lychd_core.assembly.execution import execution_report, render_execution
from lychd_core.assembly.execution import kept_labels as execution_labels
from lychd_core.assembly.nodes import floor_node_id, labels_of_nodes
from lychd_core.assembly.request import AssemblyRequest
from lychd_core.assembly.stages.compress import AssemblyCompression, derived_labels, render_floor, render_history
from lychd_core.assembly.stages.graph import BuiltGraph
from lychd_core.assembly.stages.select import Selection
from lychd_core.blocks import Block, Layer, prefix_digest
from lychd_core.graph import SelectionPlan
from lychd_core.labels import PrivatizationLabel, join_labels
from lychd_core.memory import MemoryEvidence
from lychd_core.ranking import RankedFloor


@dataclass(frozen=True)
class Decided:
    """What the stages before rendering decided for one call."""

    request: AssemblyRequest
    role: str
    bounds: AssemblyBounds
    built: BuiltGraph
    selection: Selection
    compression: AssemblyCompression
    plan: SelectionPlan
    """The final plan: the selection's, or the one compression left."""
    ranked: RankedFloor
    memory: tuple[MemoryEvidence, ...]
    continuation_json: tuple[str, ...]
    unusable: tuple[Unexplained, ...]
    """What never became a node, or was set aside, and why (in stage order)."""


def render_context(decided: Decided, environment: dict[str, Any]) -> AssembledContext:
    """The assembled context; ``environment`` holds the facts of the floor's environment block."""
    request, plan, compression = decided.request, decided.plan, decided.compression
    selected = set(plan.selected)
    kept_floor = render_floor(decided.built.floor.blocks, selected, compression)
    kept_memory = [m for m in decided.memory if m.node_id in selected]
    groups = decided.selection.history_groups
    ids = [node.id for node in decided.selection.history_nodes]  # newest first, as the groups
    kept_history, kept_start = render_history(ids[::-1], groups[::-1], selected, compression)
    if request.execution is not None:
        kept_history = render_execution(request.execution, selected)
    node_labels, every_label = labels(decided, kept_floor, kept_memory, selected, ids)
    layer_chars = {
        "floor": sum(len(b.text) for b in kept_floor if b.layer is not Layer.CODEX),
        "codex": sum(len(b.text) for b in kept_floor if b.layer is Layer.CODEX),
        "memory": sum(len(m.text) for m in kept_memory),
        "history": sum(map(len, kept_history)),
        "continuation": sum(map(len, decided.continuation_json)),
        "query": len(request.query),
    }
    return AssembledContext(
        run_id=request.run_id,
        session_id=request.session_id,
        role=decided.role,
        floor=kept_floor,
        prefix_digest=prefix_digest(kept_floor),
        query=request.query,
        label=join_labels(distinct_labels(node_labels.values())),
        node_labels=node_labels,
        candidate_labels=every_label,
        bounds=decided.bounds,
        required_chars=decided.built.required_chars,
        used_chars=plan.accounting.selected_chars,  # the selector counted them as it admitted them
        plan=plan,
        history_start=len(request.history) if kept_start is None else kept_start,
        not_nodes=decided.unusable,
        memory_plan=request.memory_plan(),
        environment=environment,
        layer_chars=layer_chars,
        compression_report=compression,
        execution=None if request.execution is None else execution_report(request.execution, selected),
        ranking=decided.ranked if decided.ranked.report is not None else None,
        trim=decided.selection.trim,
        _history=kept_history,
        _continuation=decided.continuation_json,
    )


def distinct_labels(labels: Iterable[PrivatizationLabel]) -> list[PrivatizationLabel]:
    """Each label object once, in first-seen order: every history group shares one label, and
    a join is the same with a label given once as with it given many times."""
    return list({id(label): label for label in labels}.values())


def labels(
    decided: Decided,
    kept_floor: tuple[Block, ...],
    kept_memory: list[MemoryEvidence],
    selected: set[str],
    history_ids: list[str],
) -> tuple[dict[str, PrivatizationLabel], dict[str, PrivatizationLabel]]:
    """The label of every selected node, and of every candidate (plus the derived nodes);
    ``history_ids``: the history candidates' node ids."""
    request = decided.request
    given = (request.history_label, request.continuation_label, request.query_label)
    continuing = bool(decided.continuation_json)
    source_floor = [b for b in kept_floor if floor_node_id(b) in selected]
    kept_ids = [node_id for node_id in history_ids if node_id in selected]
    node_labels = labels_of_nodes(source_floor, kept_memory, kept_ids, continuing, *given)
    node_labels.update(derived_labels(decided.compression, selected))
    if request.execution is not None:
        node_labels.update(execution_labels(request.execution, selected))
    every_label = labels_of_nodes(decided.built.floor.blocks, decided.memory, history_ids, continuing, *given)
    every_label.update(node_labels)
    return node_labels, every_label
