"""Stage 5, compress: when compression runs inside assembly, over what, and how its results render.

Compression runs only at a declared placement: ``over-budget`` runs the pinned
compressors when the first plan leaves optional material out for lack of room, and
``never`` does not run them. The report says what ran, why, and what each saved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lychd_core.assembly.nodes import floor_node_id, history_node_id, is_codex_node
from lychd_core.assembly.request import AssemblyRequest
from lychd_core.assembly.stages.graph import BuiltGraph
from lychd_core.assembly.stages.select import Selection
from lychd_core.blocks import Block, Layer, Lineage
from lychd_core.compression.runner import CompressionOutcome, HistoryMessages, PinnedCompressor, compress_graph, pinned
from lychd_core.compression.validation import ValidatedCompaction, in_play
from lychd_core.config import LychdConfig
from lychd_core.errors import AssemblyError
from lychd_core.families import Compressor
from lychd_core.graph import ContextGraph, ContextNode, SelectionPlan
from lychd_core.history import Message, MessageGroup
from lychd_core.labels import PrivatizationLabel
from lychd_core.registry import Registry
from lychd_core.vocabulary import ContextClass, Provenance, Requirement


def placement_of(config: LychdConfig, compress: bool | None) -> str:
    """The placement in force: the caller's explicit choice, else the configured one."""
    if compress is None:
        return config.compression.placement
    return "over-budget" if compress else "never"


def pinned_compressors(config: LychdConfig, registry: Registry) -> list[PinnedCompressor]:
    """The configured compressors, resolved at their exact revisions with validated options."""
    pins = config.compression.compressors
    if not pins:
        raise AssemblyError(
            "compression was requested, but no compressors are pinned; add them under "
            '[[compression.compressors]] (for example name = "compress.tool-output-elision", revision = 2)'
        )
    result = []
    for pin in pins:
        compressor = registry.compressor(pin.name, pin.revision)
        result.append(pinned(compressor, compressor.options_model.model_validate(pin.options)))
    return result


def candidate(node: ContextNode) -> bool:
    """Assembly offers settled history groups and optional codex material: what it can render."""
    if node.context_class is ContextClass.HISTORY:
        return True
    return is_codex_node(node) and node.requirement is Requirement.OPTIONAL


@dataclass(frozen=True)
class AssemblyCompression:
    """What compression did for one assembly, as data (``to_json``) and for rendering."""

    placement: str
    ran: bool
    reason: str
    outcome: CompressionOutcome | None = None
    derived_by_source: dict[str, ValidatedCompaction] = field(default_factory=dict)
    history: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each derived history node's messages (compact JSON), checked once."""

    @property
    def compactions(self) -> tuple[ValidatedCompaction, ...]:
        return () if self.outcome is None else self.outcome.compactions

    def to_json(self) -> dict[str, Any]:
        per_policy: dict[str, dict[str, int]] = {}
        for c in self.compactions:
            entry = per_policy.setdefault(c.receipt.policy_id, {"proposals": 0, "saved_chars": 0, "saved_tokens": 0})
            entry["proposals"] += 1
            entry["saved_chars"] += c.receipt.saved_chars
            entry["saved_tokens"] += c.receipt.saved_tokens
        return {
            "placement": self.placement,
            "ran": self.ran,
            "reason": self.reason,
            "saved": {
                "chars": sum(c.receipt.saved_chars for c in self.compactions),
                "tokens": sum(c.receipt.saved_tokens for c in self.compactions),
            },
            "compressors": per_policy,
            "compactions": [c.receipt.to_json() for c in self.compactions],
        }


def compress_for_assembly(
    graph: ContextGraph,
    plan: SelectionPlan,
    config: LychdConfig,
    registry: Registry,
    *,
    compress: bool | None,
    chars_per_token: int,
    labels: Mapping[str, PrivatizationLabel],
    older_unseen: int,
    semantic: Compressor | None = None,
    history: HistoryMessages | None = None,
    count: Callable[[str], int] | None = None,
) -> AssemblyCompression:
    """Run the pinned compressors if the placement says so, then the caller's semantic
    compressor if one was passed (its own placement); the graph and plan they leave.

    ``history`` maps each history node to its messages and their texts, so compressors
    read them parsed and derived history renders from its checked messages. ``count``: the
    configured token counter, which prices derived nodes like their sources."""
    placement = placement_of(config, compress)
    if semantic is not None:
        placement = f"{placement}+semantic"
    if placement == "never":
        return AssemblyCompression(placement, False, "placement never: compressors do not run")
    state = in_play(plan)
    short = [i for i in range(len(plan.graph)) if state(i)[1]]
    if not short:
        return AssemblyCompression(placement, False, "everything fits: no optional material would be omitted")
    pins = [] if placement.startswith("never") else pinned_compressors(config, registry)
    if semantic is not None:
        pins.append(pinned(semantic))
    outcome = compress_graph(
        graph,
        plan,
        pins,
        max_chars=config.compression.max_chars,
        chars_per_token=chars_per_token,
        labels=labels,
        candidate=candidate,
        older_unseen=older_unseen,
        history={} if history is None else history,
        count=count,
    )
    by_source = {source: c for c in outcome.compactions for source in c.replaced}
    parsed = outcome.history or {}  # derived history was checked as complete messages by the runner
    texts = {c.node.id: parsed[c.node.id][1] for c in outcome.compactions if c.source_class is ContextClass.HISTORY}
    reason = f"placement over-budget: {len(short)} optional nodes would be omitted for lack of room"
    return AssemblyCompression(placement, True, reason, outcome, by_source, texts)


def history_messages(history: Sequence[Message], groups: Sequence[MessageGroup]) -> HistoryMessages:
    """Each history node's checked messages (the caller's objects, read-only) and their texts."""
    return {history_node_id(g): (tuple(history[g.start : g.end]), g.texts) for g in groups}


def derived_block(compaction: ValidatedCompaction) -> Block:
    """The layer-2 block a derived codex node renders as, with its lineage and label."""
    receipt = compaction.receipt
    return Block(
        layer=Layer.CODEX,
        key=compaction.node.id,
        text=compaction.node.content,
        label=compaction.label,
        lineage=Lineage(
            source_digests=tuple(digest for _, digest in receipt.sources),
            profile=receipt.policy_id,
            omissions=receipt.omissions,
            tags=(Provenance.DERIVED_COMPACTION.value,),
        ),
    )


def kept_in_order(
    ids: Sequence[str], selected: set[str], compression: AssemblyCompression
) -> list[tuple[str, ValidatedCompaction | None]]:
    """``ids`` (render order) mapped to what renders: the node itself, or once per derived node."""
    result: list[tuple[str, ValidatedCompaction | None]] = []
    emitted: set[str] = set()
    for node_id in ids:
        compaction = compression.derived_by_source.get(node_id)
        if compaction is None:
            if node_id in selected:
                result.append((node_id, None))
        elif compaction.node.id in selected and compaction.node.id not in emitted:
            emitted.add(compaction.node.id)
            result.append((node_id, compaction))
    return result


def render_floor(floor: Sequence[Block], selected: set[str], compression: AssemblyCompression) -> tuple[Block, ...]:
    """Kept floor blocks in order, a derived block in place of the first of its sources."""
    by_id = {floor_node_id(block): block for block in floor}
    kept = kept_in_order(list(by_id), selected, compression)
    return tuple(by_id[node_id] if c is None else derived_block(c) for node_id, c in kept)


def render_history(
    ids: Sequence[str], groups: Sequence[MessageGroup], selected: set[str], compression: AssemblyCompression
) -> tuple[tuple[str, ...], int | None]:
    """Kept history texts oldest first from the history nodes' ``ids`` and their ``groups``
    (both oldest first), and the start of the oldest kept message."""
    texts: list[str] = []
    start: int | None = None
    by_id = dict(zip(ids, groups, strict=True))
    for node_id, compaction in kept_in_order(ids, selected, compression):
        group = by_id[node_id]
        start = group.start if start is None else start
        texts += group.texts if compaction is None else compression.history[compaction.node.id]
    return tuple(texts), start


def derived_labels(compression: AssemblyCompression, selected: set[str]) -> dict[str, PrivatizationLabel]:
    """The label of every selected derived node: the join of its sources' labels."""
    return {c.node.id: c.label for c in compression.compactions if c.node.id in selected}


def compress_selection(
    selection: Selection,
    built: BuiltGraph,
    request: AssemblyRequest,
    config: LychdConfig,
    registry: Registry,
    *,
    chars_per_token: int,
    count: Callable[[str], int] | None = None,
) -> tuple[AssemblyCompression, SelectionPlan]:
    """Compress what the selection would omit, at the declared placement; the report, and
    the plan that results (the selection's own when nothing ran)."""
    labels = {floor_node_id(block): block.label for block in built.floor.blocks}
    if request.history_label is not None:
        labels.update({node.id: request.history_label for node in selection.history_nodes})
    compressing = compresses(config, request.compress, request.semantic)
    compression = compress_for_assembly(
        selection.graph,
        selection.plan,
        config,
        registry,
        compress=request.compress,
        chars_per_token=chars_per_token,
        labels=labels,
        older_unseen=built.older,
        semantic=request.semantic,
        history=history_messages(request.history, selection.history_groups) if compressing else None,
        count=count,
    )
    return compression, selection.plan if compression.outcome is None else compression.outcome.plan


def compresses(config: LychdConfig, compress: bool | None, semantic: Compressor | None) -> bool:
    """Whether any compressor may run: a placement other than ``never``, or a semantic one."""
    return placement_of(config, compress) != "never" or semantic is not None
