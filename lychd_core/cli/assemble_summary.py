"""What ``lychd assemble`` tells a person, as data: budget, counts, selected material, label.

Every figure here is taken from the assembled context's typed fields (the plan's
explanations, the ranking report, the labels); the sentences a person reads are made
from this data in :mod:`lychd_core.cli.assemble_show`, and ``--format json`` carries it
as its ``summary`` key.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from lychd_core.assembly import AssembledContext, Unexplained
from lychd_core.graph import ContextNode
from lychd_core.ranking import NodeRanking, node_rankings
from lychd_core.vocabulary import ContextClass, OmissionReason, Requirement

PARTS = ("instructions", "codex", "environment", "memory", "compaction", "history", "continuation", "query", "other")
"""The parts of a context, in the order the budget bar shows them."""

_PART_OF_CLASS = {
    ContextClass.POLICY: "instructions",
    ContextClass.INSTRUCTION: "instructions",
    ContextClass.SPECIFICATION: "instructions",
    ContextClass.ENVIRONMENT: "environment",
    ContextClass.MEMORY_EVIDENCE: "memory",
    ContextClass.COMPACTION: "compaction",
    ContextClass.HISTORY: "history",
    ContextClass.CONTINUATION: "continuation",
    ContextClass.QUERY: "query",
}

OMISSION_WORDS = {
    OmissionReason.HIDDEN: "hidden from the role",
    OmissionReason.HIDDEN_DEPENDENCY: "depends on material hidden from the role",
    OmissionReason.TOKEN_BUDGET: "did not fit the token budget",
    OmissionReason.CHARACTER_LIMIT: "did not fit the character cap",
    OmissionReason.BYTE_LIMIT: "did not fit the byte limit",
    OmissionReason.NODE_LIMIT: "did not fit the node limit",
    OmissionReason.OUTSIDE_TURN_WINDOW: "older than the history turn window",
    OmissionReason.NOT_NEEDED: "not needed by anything selected",
    OmissionReason.ALTERNATIVE_SELECTED: "another view of it was chosen",
}
"""Each omission reason in plain words (the typed reason stays in ``--explain`` and JSON)."""


def part_of(node: ContextNode) -> str:
    """Which part of the context a node belongs to (a Codex node is one view of a file)."""
    if node.id.startswith("L2:"):
        return "codex"
    return _PART_OF_CLASS.get(node.context_class, "other")


def file_of(node_id: str) -> tuple[str, str]:
    """``(path, view)`` of a Codex node id ``L2:codex:PATH:PROFILE@REV[#VIEW]``."""
    key, _, view = node_id.removeprefix("L2:").partition("#")
    source = key.removeprefix("codex:").rsplit(":", 1)[0] if key.startswith("codex:") else key
    return source, view or "full"


@dataclass(frozen=True, slots=True)
class Budget:
    """The bound the summary shows, in one unit: what each part used, and the cap."""

    unit: str
    """``characters`` (no model window is known: the character cap bounds) or ``tokens``."""
    used: int
    cap: int
    parts: dict[str, int]
    """What each part of the context used, in ``unit`` (only parts that used any)."""
    basis: str
    """Where the cap comes from, in words."""


@dataclass(frozen=True, slots=True)
class PartCount:
    """How many items of one part were selected and omitted (a file counts once, whatever its views)."""

    part: str
    selected: int
    omitted: int
    omitted_why: dict[str, int] = field(default_factory=dict)
    """Omitted items by reason, in plain words."""


@dataclass(frozen=True, slots=True)
class Material:
    """One Codex file in the context: the view it entered with, its size, rank, score and why."""

    path: str
    view: str
    """``full``, or the coarser view taken (``signatures``, ``names``)."""
    size: int
    """In the budget's unit."""
    required: bool
    rank: int | None
    score: int | None
    reason: str
    """Why it is here, in plain words."""
    node_id: str


@dataclass(frozen=True, slots=True)
class AssemblySummary:
    """Everything the default ``lychd assemble`` screen shows."""

    run_id: str
    role: str
    budget: Budget
    counts: tuple[PartCount, ...]
    material: tuple[Material, ...]
    """Selected files: required ones first, then in rank order."""
    unavailable: tuple[tuple[str, str], ...]
    """Material that never became a node (projection unavailable, empty, skipped), with why."""
    label: str
    """The joined privacy class, lowercase."""
    label_because: tuple[str, ...]
    """The parts that raised the joined label to its class (or left its lineage unknown)."""
    lineage_known: bool
    egress: str
    prefix_digest: str
    ranking: str | None
    compression: str | None = None
    """What compression did, in words (``None`` when its placement is ``never``)."""
    notes: tuple[str, ...] = ()
    config: str | None = None
    """The configuration in use, as the summary names it (``None``: not named)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def summarize(
    assembled: AssembledContext,
    skipped: list[Unexplained],
    target: str | None,
    egress: dict[str, Any] | None,
    *,
    config: str | None = None,
) -> AssemblySummary:
    """The summary of one assembly; ``egress`` is the gate's decision for ``target`` (as JSON),
    ``config`` names the configuration in use."""
    budget = _budget(assembled)
    rankings = node_rankings(assembled.ranking, assembled.plan) if assembled.ranking is not None else {}
    label = assembled.label
    return AssemblySummary(
        run_id=assembled.run_id,
        role=assembled.role,
        budget=budget,
        counts=_counts(assembled, skipped),
        material=_material(assembled, rankings, budget.unit),
        unavailable=tuple((_material_name(item.what), item.reason) for item in (*assembled.not_nodes, *skipped)),
        label=label.privacy_class.name.lower(),
        label_because=_label_because(assembled),
        lineage_known=label.lineage_known,
        egress=_egress_words(target, egress),
        prefix_digest=assembled.prefix_digest,
        ranking=_ranking_words(assembled),
        compression=_compression_words(assembled.compression),
        notes=tuple(assembled.ranking.notes) if assembled.ranking is not None else (),
        config=config,
    )


def _material_name(what: str) -> str:
    """``codex:PATH:PROFILE@REV`` (or ``codex:PATH``) as ``PATH``; anything else as it is."""
    if not what.startswith("codex:"):
        return what
    rest = what.removeprefix("codex:")
    path, _, pin = rest.rpartition(":")
    return path if path and "@" in pin else rest


def _size(node: ContextNode, unit: str) -> int:
    return node.token_estimate if unit == "tokens" else node.chars


def _budget(assembled: AssembledContext) -> Budget:
    """Tokens when a model window is known (the token budget binds), else characters (the cap binds)."""
    bounds = assembled.bounds
    unit = "characters" if bounds.window is None else "tokens"
    graph = assembled.plan.graph
    parts: Counter[str] = Counter()
    for node_id in assembled.plan.selected:
        node = graph.node(node_id)
        parts[part_of(node)] += _size(node, unit)
    if bounds.window is None:
        cap = bounds.char_cap
        basis = "the character cap; no model window is known (--window sets one)"
    else:
        cap = bounds.budget.usable
        basis = (
            f"window {bounds.window:,} tokens less {bounds.reserve_output:,} reserved for output"
            + (f" and {bounds.protocol_overhead:,} overhead" if bounds.protocol_overhead else "")
            + (
                f"; tokens estimated as characters / {bounds.chars_per_token}"
                if bounds.token_counter == "reference"
                else f"; tokens counted by {bounds.token_counter}"
            )
        )
    shown = {part: parts[part] for part in PARTS if parts[part]}
    return Budget(unit, sum(shown.values()), cap, shown, basis)


def _counts(assembled: AssembledContext, skipped: list[Unexplained]) -> tuple[PartCount, ...]:
    """Selected and omitted items per part; a file (all its views) is one item."""
    graph, explanations = assembled.plan.graph, assembled.plan.explanations
    items: dict[tuple[str, str], list[str]] = {}
    for node in graph.nodes:
        key = node.exclusive_group or node.id
        items.setdefault((part_of(node), key), []).append(node.id)
    selected: Counter[str] = Counter()
    omitted: dict[str, Counter[str]] = {}
    for (part, _), node_ids in items.items():
        if any(explanations[n].selected for n in node_ids):
            selected[part] += 1
            continue
        why = omitted.setdefault(part, Counter())
        reasons = [explanations[n].reason for n in node_ids]
        main = next((r for r in reasons if r is not OmissionReason.ALTERNATIVE_SELECTED), reasons[0])
        why[OMISSION_WORDS[main] if isinstance(main, OmissionReason) else main.value] += 1
    unavailable = len(assembled.not_nodes) + len(skipped)
    if unavailable:
        omitted.setdefault("codex", Counter())["unavailable"] += unavailable
    return tuple(
        PartCount(part, selected[part], sum(omitted.get(part, {}).values()), dict(omitted.get(part, {})))
        for part in PARTS
        if selected[part] or part in omitted
    )


def _material(assembled: AssembledContext, rankings: dict[str, NodeRanking], unit: str) -> tuple[Material, ...]:
    graph = assembled.plan.graph
    rows: list[Material] = []
    for node_id in assembled.plan.selected:
        node = graph.node(node_id)
        if part_of(node) != "codex":
            continue
        path, view = file_of(node_id)
        ranked = rankings.get(node_id)
        required = node.requirement is Requirement.REQUIRED
        rows.append(
            Material(
                path=path,
                view=view,
                size=_size(node, unit),
                required=required,
                rank=None if ranked is None else ranked.rank,
                score=None if ranked is None else ranked.score,
                reason=_why(required, view, ranked),
                node_id=node_id,
            )
        )
    unranked = len(rows) + 1
    rows.sort(key=lambda row: (not row.required, row.rank if row.rank is not None else unranked, row.path))
    return tuple(rows)


def _why(required: bool, view: str, ranked: NodeRanking | None) -> str:
    """Why a file is in the context, and why in this view, in plain words."""
    if required:
        return "required: named on the command line"
    if ranked is None:
        return "found in a directory given with --material (no ranking configured)"
    matched = "; ".join(
        part.split(": ", 1)[-1].removeprefix("seed: ") for part in ranked.reason.split("; ") if part.strip()
    )
    if ranked.score == 0:
        words = "no match for the query"
        if view == "full":
            return f"{words}; small enough that the repository map shows it in full"
        return f"{words}; the repository map shows its {view}"
    if view != "full":
        matched += f"; {view} only" + (
            f" ({ranked.resolution_note.split(': ', 1)[-1]})" if ranked.resolution_note else ""
        )
    return matched


def _label_because(assembled: AssembledContext) -> tuple[str, ...]:
    """The nodes that set the joined class (and any of unknown lineage), named for a person."""
    label = assembled.label
    nodes = [n for n, lab in assembled.node_labels.items() if lab.privacy_class == label.privacy_class]
    if not label.lineage_known:
        nodes += [n for n, lab in assembled.node_labels.items() if not lab.lineage_known and n not in nodes]
    return tuple(describe(node_id) for node_id in nodes)


def describe(node_id: str) -> str:
    """A node named for a person: a file's path, or what the part is."""
    if node_id.startswith("L2:"):
        path, view = file_of(node_id)
        return path if view == "full" else f"{path} ({view})"
    if node_id.startswith("L1:"):
        return "the instructions"
    if node_id.startswith("L3:"):
        return "the environment snapshot"
    derived, _, source = node_id.partition(":history:")
    if source or node_id.startswith("history:"):
        span = source or node_id.removeprefix("history:")
        first, _, end = span.partition("-")
        words = f"history messages {int(first)}-{int(end) - 1}" if first.isdigit() and end.isdigit() else span
        return f"{words} ({derived}, a compaction)" if source else words
    if node_id.startswith("memory:"):
        return "memory " + node_id.removeprefix("memory:")
    if node_id in ("query", "continuation"):
        return f"the {node_id}"
    return node_id


def _egress_words(target: str | None, egress: dict[str, Any] | None) -> str:
    if target is None or egress is None:
        return "not checked (no --target given)"
    return f"admitted to {target}" if egress["admitted"] else f"refused for {target}"


def _ranking_words(assembled: AssembledContext) -> str | None:
    report = assembled.ranking.report if assembled.ranking is not None else None
    if report is None:
        return None
    if not report.ranked:
        return f"ranking fell back to the given order: {report.fallback}"
    scored = sum(1 for entry in report.entries if entry.score)
    names = " and ".join(pin.split("@")[0] for pin, _ in report.profiles)
    return f"files ranked for the query by {names}: {scored} of {len(report.entries)} matched"


def _compression_words(report: dict[str, Any] | None) -> str | None:
    if report is None or (not report["ran"] and report["placement"] == "never"):
        return None
    if not report["ran"]:
        return f"compression ({report['placement']}) did not run: {report['reason']}"
    count = len(report["compactions"])
    return (
        f"compression ({report['placement']}): {report['reason']}; {count:,} compaction(s) saved "
        f"{report['saved']['chars']:,} characters (--explain lists them)"
    )
