"""The assembled context: what one model call may see, and why."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from lychd_core.assembly.bounds import AssemblyBounds
from lychd_core.assembly.floor import render_floor
from lychd_core.assembly.trim import TrimDecision
from lychd_core.blocks import Block, Layer
from lychd_core.graph import RenderPlan, SelectionPlan, render
from lychd_core.history import Message, thaw
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy.egress import label_sources
from lychd_core.ranking import RankedFloor, ranking_json


class CompressionReport(Protocol):
    """What compression did for one assembly (``lychd_core.compression.AssemblyCompression``)."""

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Unexplained:
    """Material that never became a node, with the reason (kept visible, never hidden)."""

    what: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"what": self.what, "reason": self.reason}


@dataclass(frozen=True)
class AssembledContext:
    """Ordered floor blocks, bounded history, continuation and query, with every explanation.

    History and continuation are retained as their compact JSON text, the exact bytes
    their budget was checked against; every read parses a fresh copy, so no caller edit
    reaches the retained assembly. Blocks are immutable and may be shared.
    """

    run_id: str
    session_id: str
    role: str
    floor: tuple[Block, ...]
    prefix_digest: str
    query: str
    label: PrivatizationLabel
    bounds: AssemblyBounds
    required_chars: int
    """Characters reserved first: floor, query and continuation."""
    used_chars: int
    plan: SelectionPlan
    history_start: int
    """Index in the caller's history of the oldest kept message (len(history) keeps none)."""
    not_nodes: tuple[Unexplained, ...] = ()
    layer_chars: dict[str, int] = field(default_factory=dict)
    memory_plan: dict[str, Any] | None = None
    """The retrieval plan the memory evidence came from, with every record explained."""
    environment: dict[str, Any] | None = None
    """The environment block's facts as data (the block itself is text for the model)."""
    compression_report: CompressionReport | None = None
    """What compression did, as typed results; ``compression`` is its JSON, made on first read."""
    execution: dict[str, Any] | None = None
    """The Execution Projection that replaced settled history, item by item, if any."""
    node_labels: Mapping[str, PrivatizationLabel] = field(default_factory=dict)
    """The label of every selected node; ``label`` is their join."""
    candidate_labels: Mapping[str, PrivatizationLabel] = field(default_factory=dict)
    """The label of every node, selected or omitted (for display; egress checks ``node_labels``)."""
    ranking: RankedFloor | None = None
    """How the optional Codex material was ranked (``None`` when no ranking profile is configured)."""
    trim: TrimDecision | None = None
    """Where the kept history starts under ``[history] trim`` and why; pass ``history_start`` back
    as ``history_trim`` to the next assembly of the conversation."""
    _history: tuple[str, ...] = ()
    _continuation: tuple[str, ...] = ()

    @cached_property
    def compression(self) -> dict[str, Any] | None:
        """What compression did: placement, whether it ran and why, each compaction's receipt.

        Made from ``compression_report`` on first read: the receipts are complete when the
        assembly is, and spelling them as data is left to whoever reads them."""
        return None if self.compression_report is None else self.compression_report.to_json()

    @property
    def window(self) -> int | None:
        """The known context window, in tokens."""
        return self.bounds.window

    @property
    def history(self) -> list[Message]:
        """The kept settled history (a detached copy)."""
        return thaw(self._history)

    @property
    def continuation(self) -> list[Message]:
        """The indivisible continuation (a detached copy)."""
        return thaw(self._continuation)

    def model_history(self) -> list[Message]:
        """Settled history then continuation, detached: what becomes model messages."""
        return thaw(self._history + self._continuation)

    def render_plan(self) -> RenderPlan:
        """Typed segments in render order, every source boundary explicit."""
        return render(self.plan.graph, self.plan)

    def blocks(self, layer: Layer) -> tuple[Block, ...]:
        return tuple(block for block in self.floor if block.layer is layer)

    def instructions_text(self) -> str:
        """Floor text with explicit source boundaries, for dynamic instructions."""
        return render_floor(self.floor)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "session_id": self.session_id,
            "role": self.role,
            "floor": [block.to_json() for block in self.floor],
            "prefix_digest": self.prefix_digest,
            "history": self.history,
            "history_start": self.history_start,
            "history_trim": None if self.trim is None else self.trim.to_json(),
            "continuation": self.continuation,
            "query": self.query,
            "window": self.window,
            "governed": {
                **self.bounds.to_json(),
                "required_chars": self.required_chars,
                "used_chars": self.used_chars,
            },
            "layer_chars": dict(sorted(self.layer_chars.items())),
            "label": self.label.to_json(),
            "node_labels": {node_id: label.to_json() for node_id, label in self.node_labels.items()},
            "candidate_labels": {node_id: label.to_json() for node_id, label in self.candidate_labels.items()},
            "label_sources": label_sources(self.node_labels),
            "plan": self.plan.to_json(),
            "not_nodes": [item.to_json() for item in self.not_nodes],
            "memory_plan": self.memory_plan,
            "environment": self.environment,
            "compression": self.compression,
            "execution": self.execution,
            "ranking": None if self.ranking is None else ranking_json(self.ranking, self.plan),
        }
