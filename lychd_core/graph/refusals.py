"""The typed refusals of selection: required material that is hidden or does not fit."""

from __future__ import annotations

from typing import NoReturn

from lychd_core.errors import RequiredHiddenError, RequiredOverBudgetError
from lychd_core.graph.budget import SelectionBounds, TokenBudget, checked_add
from lychd_core.graph.details import BOUND_REASONS, HIDDEN_DEPENDENCY, TOKENS, UNITS, Outcome, hidden_why
from lychd_core.graph.graph import ContextGraph
from lychd_core.roles import RoleProfile


def raise_hidden(graph: ContextGraph, profile: RoleProfile, outcome: Outcome, root: int) -> NoReturn:
    """Refuse the blocked required ``root``, naming the hidden node and the path to it."""
    nodes, blocked, cause = graph.nodes, outcome.blocked, outcome.cause
    path = [root]
    while blocked[path[-1]] == HIDDEN_DEPENDENCY:
        path.append(cause[path[-1]])
    ids = tuple(nodes[i].id for i in path)
    hidden = nodes[path[-1]]
    where = "it is hidden" if len(path) == 1 else f"{hidden.id!r} in its closure is hidden (via {' -> '.join(ids)})"
    raise RequiredHiddenError(
        f"required node {ids[0]!r} cannot be selected for role {profile.role!r}: {where}: "
        f"{hidden_why(profile, hidden)}; no partial plan is made",
        node_id=ids[0],
        hidden_id=hidden.id,
        path=ids,
    )


def raise_over_budget(
    graph: ContextGraph, budget: TokenBudget, bounds: SelectionBounds, bound: int, root: int, required: list[int]
) -> NoReturn:
    """Refuse required material that overflowed ``bound`` at ``root``, with the totals of
    every required closure."""
    a = graph.arrays
    seen = set(required)
    stack = list(required)
    while stack:
        for dep in a.deps[stack.pop()]:
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    totals = [checked_add("required closure", *(a.sizes[4 * i + code] for i in seen)) for code in range(4)]
    totals.append(len(seen))
    limits = (bounds.max_history_groups, budget.usable, bounds.max_chars, bounds.max_bytes, bounds.max_nodes)
    available = limits[bound] or 0
    reason, node_id = BOUND_REASONS[bound], graph.nodes[root].id
    raise RequiredOverBudgetError(
        f"required material does not fit ({reason.value}): the closures of all required nodes need "
        f"{totals[bound]} {UNITS[bound]} but only {available} are available; it overflowed at required "
        f"node {node_id!r}. Required material is never dropped: enlarge the window or bound, or reduce it",
        node_id=node_id,
        bound=reason,
        required=totals[bound],
        available=available,
        required_tokens=totals[TOKENS],
        available_tokens=budget.usable,
    )
