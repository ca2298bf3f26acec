"""Stage 4, select: the one selector decides what the call sees, then the declared history
trim (``[history] trim``) may move the start of kept history, and the selector decides again.

Complete groups and the continuation rules are the selector's; the trim only removes the
oldest kept groups (``chunked``, ``cost``), so requests append to a stable prefix between trims.
"""

from __future__ import annotations

from dataclasses import dataclass

from lychd_core.assembly.bounds import AssemblyBounds
from lychd_core.assembly.context import Unexplained
from lychd_core.assembly.stages.graph import BuiltGraph
from lychd_core.assembly.trim import TrimDecision, cache_prices, selected_history_trim
from lychd_core.config.tokens import HistoryConfig
from lychd_core.graph import ContextGraph, ContextNode, SelectionPlan, select
from lychd_core.history import MessageGroup
from lychd_core.roles import RoleProfile


@dataclass(frozen=True)
class Selection:
    """The graph selected from, its plan, the history trim in force, the history candidates
    the trim left, and what the trim set aside."""

    graph: ContextGraph
    plan: SelectionPlan
    trim: TrimDecision
    history_nodes: tuple[ContextNode, ...]
    history_groups: tuple[MessageGroup, ...]
    unusable: tuple[Unexplained, ...] = ()


def select_stage(
    built: BuiltGraph,
    profile: RoleProfile,
    bounds: AssemblyBounds,
    history: HistoryConfig,
    *,
    history_end: int,
    previous_start: int | None,
) -> Selection:
    """Select, trim history as configured (``previous_start``: the last call's kept start)."""
    graph = ContextGraph(built.nodes)
    plan = select(graph, profile, bounds.budget, bounds.selection)
    chosen = frozenset(plan.selected)
    groups = zip(built.history_groups, built.history_nodes, strict=True)
    trim = selected_history_trim(
        [(g.start, g.chars, n.token_estimate, n.id in chosen) for g, n in groups],
        end=history_end,
        previous=previous_start,
        mode=history.trim,
        low_water=history.low_water,
        turn_window=bounds.turn_window,
        prices=cache_prices(history) if history.trim == "cost" else None,  # only cost weighs prices
    )
    if trim.start <= trim.newest_start:
        return Selection(graph, plan, trim, built.history_nodes, built.history_groups)
    # chunked or cost dropped the oldest kept groups: select again without them
    pairs = zip(built.history_groups, built.history_nodes, strict=True)
    dropped = {n.id for g, n in pairs if g.start < trim.start}
    graph = ContextGraph([n for n in built.nodes if n.id not in dropped])
    plan = select(graph, profile, bounds.budget, bounds.selection)
    reason = trim.explain()
    return Selection(
        graph,
        plan,
        trim,
        tuple(n for n in built.history_nodes if n.id not in dropped),
        tuple(g for g in built.history_groups if g.start >= trim.start),
        (Unexplained(f"history[{built.older}:{trim.start}]", reason),),
    )
