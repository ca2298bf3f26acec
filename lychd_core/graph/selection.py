"""Deterministic selection: the one engine that decides what enters a model call.

1. Apply the role's visibility; a node whose closure holds a hidden node is blocked.
2. Admit every required node with its whole dependency closure, or fail with a typed
   error naming the node: never a partial plan.
3. Take every optional node as a candidate root in precedence order and admit it only
   when its whole not-yet-selected closure fits every bound; else omit it atomically.
4. Explain every node.

Step 3 stays near-linear on long chains and big DAGs by remembering *doomed* nodes:
once a node's unselected closure exceeds a bound it can never fit again (selection
only grows and every remaining bound only shrinks, by at least what the closure loses),
and neither can anything that depends on it. A walk that meets a doomed node stops. A
failed walk's path is binary-searched for its deepest doomed node, and doom spreads from
it to all its dependents; a root too big on its own is doomed without a walk.
"""

from __future__ import annotations

from array import array
from typing import NoReturn

from lychd_core.errors import SelectionError
from lychd_core.gcpause import cyclic_gc_paused
from lychd_core.graph.budget import MAX_INT, BudgetAccounting, SelectionBounds, TokenBudget, checked_add
from lychd_core.graph.details import (
    BOUND_REASONS,
    HIDDEN,
    HIDDEN_DEPENDENCY,
    OPTIONAL_DEPENDENCY,
    OPTIONAL_ROOT,
    REQUIRED_DEPENDENCY,
    REQUIRED_ROOT,
    UNITS,
    ExplanationMap,
    Outcome,
    hidden_why,
)
from lychd_core.graph.errors import RequiredHiddenError, RequiredOverBudgetError
from lychd_core.graph.explain import SelectionPlan
from lychd_core.graph.graph import CLASSES, PROVENANCES, ContextGraph, precedence_key
from lychd_core.graph.nodes import ContextNode
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import Requirement

UNBOUNDED = 1 << 256
"""Remaining amount of a bound that was not set: larger than any possible sum."""

# Bound codes, in the order a failed admission reports them (see details.BOUND_REASONS).
HISTORY, TOKENS, CHARS, BYTES, NODES = range(5)


def visible(profile: RoleProfile, node: ContextNode) -> bool:
    """Whether ``profile`` lets its role see ``node`` (class, provenance and ``visible_to``)."""
    return (
        node.context_class in profile.visible_classes
        and node.provenance in profile.visible_provenances
        and (node.visible_to is None or profile.role in node.visible_to)
    )


def select(
    graph: ContextGraph, profile: RoleProfile, budget: TokenBudget, bounds: SelectionBounds | None = None
) -> SelectionPlan:
    """Select from ``graph`` for ``profile`` within ``budget`` and ``bounds``; explain every node.

    Raises ``RequiredHiddenError`` or ``RequiredOverBudgetError`` (both ``SelectionError``)
    when required material cannot be selected whole, and ``AccountingOverflowError``
    (a ``BudgetError``) when required estimates sum past 2**63-1.
    """
    if not isinstance(graph, ContextGraph):
        raise SelectionError(f"select needs a ContextGraph, got {type(graph).__name__}")
    if not isinstance(profile, RoleProfile):
        raise SelectionError(f"select needs a RoleProfile, got {type(profile).__name__}")
    if not isinstance(budget, TokenBudget):
        raise SelectionError(f"select needs a TokenBudget, got {type(budget).__name__}")
    if bounds is None:
        bounds = SelectionBounds()
    elif not isinstance(bounds, SelectionBounds):
        raise SelectionError(f"select needs SelectionBounds or None, got {type(bounds).__name__}")
    with cyclic_gc_paused():  # the selector's arrays and lists are acyclic
        return _Selector(graph, profile, budget, bounds).run()


class _Selector:
    def __init__(self, graph: ContextGraph, profile: RoleProfile, budget: TokenBudget, bounds: SelectionBounds):
        self.graph = graph
        self.profile = profile
        self.budget = budget
        self.bounds = bounds
        self.arrays = graph.arrays
        n = len(graph)
        self.outcome = Outcome.empty(n)
        self.settled = bytearray(n)
        """Nonzero once a node is selected, blocked or doomed: one byte for the hot loops to read."""
        self.seen = array("q", bytes(8 * n))
        self.stamp = 0
        self.order: list[int] = []
        # Set by a failed probe: the DFS path (each node depends on the next), and why.
        self.fail_path: list[int] = []
        self.fail_bound = -1
        self.fail_counted = 0
        self.fail_doomed = -1
        """The already doomed node the probe ran into, if that is why it failed."""

        def limit(value: int | None) -> int:
            return UNBOUNDED if value is None else value

        self.remaining = [
            limit(bounds.max_history_groups),
            budget.usable,
            limit(bounds.max_chars),
            limit(bounds.max_bytes),
            limit(bounds.max_nodes),
        ]

    # --- phases -------------------------------------------------------------------

    def run(self) -> SelectionPlan:
        self._apply_visibility()
        nodes, requirement = self.graph.nodes, self.arrays.requirement
        required, position = [], requirement.find(Requirement.REQUIRED)
        while position >= 0:
            required.append(position)
            position = requirement.find(Requirement.REQUIRED, position + 1)
        self._admit_required(sorted(required, key=lambda i: precedence_key(nodes[i])))
        settled, remaining, outcome = self.settled, self.remaining, self.outcome
        tokens, history = self.arrays.tokens, self.arrays.history
        doomed, failed, counted, remained = outcome.doomed, outcome.failed, outcome.counted, outcome.remained
        for root in self.graph.optional_order():
            if settled[root]:
                continue
            if tokens[root] > remaining[TOKENS] and history[root] <= remaining[HISTORY]:
                # Too big on its own, the common failure: doomed without a walk, inline for speed.
                # Its dependents are not doomed eagerly; each meets it within one bounded walk.
                settled[root], doomed[root], failed[root] = 1, TOKENS + 1, 1
                counted[root], remained[root] = tokens[root], remaining[TOKENS]
                continue
            self._consider(root)
        return self._plan()

    def _apply_visibility(self) -> None:
        """Mark hidden nodes, then everything depending on one (walking only what is blocked)."""
        profile, a, n = self.profile, self.arrays, len(self.graph)
        hidden_class = bytes(0 if cls in profile.visible_classes else 1 for cls in CLASSES).ljust(256, b"\0")
        hidden_provenance = bytes(0 if p in profile.visible_provenances else 1 for p in PROVENANCES).ljust(256, b"\0")
        # Two byte-wise translations OR-ed as integers: no Python loop over the nodes.
        flags = int.from_bytes(a.class_codes.translate(hidden_class), "little") | int.from_bytes(
            a.provenance_codes.translate(hidden_provenance), "little"
        )
        blocked = self.outcome.blocked
        blocked[:] = flags.to_bytes(n, "little")
        nodes = self.graph.nodes
        for i in a.restricted:
            roles = nodes[i].visible_to
            if roles is not None and profile.role not in roles:
                blocked[i] = HIDDEN
        stack: list[int] = []
        position = blocked.find(HIDDEN)
        while position >= 0:
            stack.append(position)
            position = blocked.find(HIDDEN, position + 1)
        if not stack:
            self.settled[:] = blocked
            return
        dependents, behind = a.dependents, []
        while stack:
            for y in dependents[stack.pop()]:
                if not blocked[y]:
                    blocked[y] = HIDDEN_DEPENDENCY
                    behind.append(y)
                    stack.append(y)
        deps, cause = a.deps, self.outcome.cause
        for y in behind:
            cause[y] = next(d for d in deps[y] if blocked[d])  # the first, in sorted order
        self.settled[:] = blocked

    def _admit_required(self, required: list[int]) -> None:
        for root in required:
            if self.outcome.blocked[root]:
                self._raise_hidden(root)
        for root in required:
            if self.outcome.state[root]:
                continue
            closure = self._probe(root)
            if closure is None:
                self._raise_over_budget(root, required)
            self._admit(root, closure, REQUIRED_ROOT, REQUIRED_DEPENDENCY)

    def _consider(self, root: int) -> None:
        """Admit the unselected, unblocked, undoomed optional ``root`` or doom it."""
        closure = self._probe(root)
        if closure is not None:
            self._admit(root, closure, OPTIONAL_ROOT, OPTIONAL_DEPENDENCY)
            return
        if self.fail_doomed >= 0:
            self._doom(root, self.outcome.doomed[self.fail_doomed] - 1, blame=self.fail_doomed)
            return
        self._doom(root, self.fail_bound)
        self._deepest_doomed(self.fail_path)

    # --- probing ------------------------------------------------------------------

    def _probe(self, root: int) -> list[int] | None:
        """The unselected closure of ``root`` in post-order (dependencies first) if it fits
        every remaining bound; else ``None`` with ``fail_*`` set. Stops at the first excess."""
        self.stamp += 1
        stamp, seen, settled, state = self.stamp, self.seen, self.settled, self.outcome.state
        a = self.arrays
        deps, tok, chars, nbytes, hist = a.deps, a.tokens, a.chars, a.nbytes, a.history
        r_hist, r_tok, r_chars, r_bytes, r_nodes = self.remaining
        self.fail_doomed = -1
        seen[root] = stamp
        h, t, c, b, k = hist[root], tok[root], chars[root], nbytes[root], 1
        stack = [root]
        if h > r_hist or t > r_tok or c > r_chars or b > r_bytes or k > r_nodes:
            self._fail(stack, (h, t, c, b, k))
            return None
        positions = [0]
        post: list[int] = []
        while stack:
            v = stack[-1]
            ds = deps[v]
            i = positions[-1]
            while i < len(ds):
                d = ds[i]
                i += 1
                if seen[d] == stamp:
                    continue
                if settled[d]:
                    if state[d]:
                        continue
                    self.fail_path = [*stack, d]  # doomed: an unblocked root's closure is never blocked
                    self.fail_doomed = d
                    return None
                seen[d] = stamp
                h += hist[d]
                t += tok[d]
                c += chars[d]
                b += nbytes[d]
                k += 1
                if h > r_hist or t > r_tok or c > r_chars or b > r_bytes or k > r_nodes:
                    stack.append(d)
                    self._fail(stack, (h, t, c, b, k))
                    return None
                positions[-1] = i
                stack.append(d)
                positions.append(0)
                break
            else:
                stack.pop()
                positions.pop()
                post.append(v)
        return post

    def _fail(self, path: list[int], counted: tuple[int, int, int, int, int]) -> None:
        remaining = self.remaining
        bound = 0
        while counted[bound] <= remaining[bound]:
            bound += 1
        self.fail_path, self.fail_bound, self.fail_counted = path, bound, counted[bound]
        # The node that tipped the sum over, if too big on its own, can never fit: remember it.
        node, a = path[-1], self.arrays
        own = (a.history[node], a.tokens[node], a.chars[node], a.nbytes[node], 1)[bound]
        if len(path) > 1 and own > remaining[bound] and not self.outcome.doomed[node]:
            self._doom(node, bound, counted=own)

    def _deepest_doomed(self, path: list[int]) -> int:
        """Binary search ``path`` for its deepest doomed node; 0 if only the root is.

        Doom is monotone along the path, since each node's closure holds its successor's.
        Dooming deep nodes lets later roots that share them fail without a walk.
        """
        doomed = self.outcome.doomed
        deepest, low, high = 0, 1, len(path) - 1
        while low <= high:
            middle = (low + high) // 2
            node = path[middle]
            if doomed[node]:
                deepest, low = middle, middle + 1
            elif self._probe(node) is None:
                if self.fail_doomed >= 0:
                    self._doom(node, doomed[self.fail_doomed] - 1, blame=self.fail_doomed)
                else:
                    self._doom(node, self.fail_bound)
                deepest, low = middle, middle + 1
            else:
                high = middle - 1
        return deepest

    def _doom(self, node: int, bound: int, *, blame: int = -1, counted: int | None = None) -> None:
        """Record that ``node`` can never fit ``bound``; spread that to everything depending on it."""
        outcome = self.outcome
        outcome.doomed[node] = bound + 1
        self.settled[node] = 1
        if blame >= 0:
            outcome.cause[node] = blame
        else:
            need = self.fail_counted if counted is None else counted
            outcome.failed[node] = 1
            outcome.counted[node] = min(need, MAX_INT)  # "at least": capping keeps it true
            outcome.remained[node] = self.remaining[bound]
        self._propagate(node)

    def _propagate(self, start: int) -> None:
        """Doom every unblocked, unselected node that depends on ``start``, transitively."""
        dependents, settled, doomed = self.arrays.dependents, self.settled, self.outcome.doomed
        mark = doomed[start]
        stack = [start]
        while stack:
            for y in dependents[stack.pop()]:
                if not settled[y]:
                    settled[y] = 1
                    doomed[y] = mark  # the dependency to blame is found when explained
                    stack.append(y)

    # --- admission ------------------------------------------------------------------

    def _admit(self, root: int, closure: list[int], root_state: int, dependency_state: int) -> None:
        a, state, cause, remaining = self.arrays, self.outcome.state, self.outcome.cause, self.remaining
        settled = self.settled
        for v in closure:
            settled[v] = 1
            state[v] = dependency_state
            cause[v] = root
            remaining[HISTORY] -= a.history[v]
            remaining[TOKENS] -= a.tokens[v]
            remaining[CHARS] -= a.chars[v]
            remaining[BYTES] -= a.nbytes[v]
            remaining[NODES] -= 1
        state[root] = root_state
        self.order.extend(closure)

    # --- failures -------------------------------------------------------------------

    def _raise_hidden(self, root: int) -> None:
        nodes, blocked, cause = self.graph.nodes, self.outcome.blocked, self.outcome.cause
        path = [root]
        while blocked[path[-1]] == HIDDEN_DEPENDENCY:
            path.append(cause[path[-1]])
        ids = tuple(nodes[i].id for i in path)
        hidden = nodes[path[-1]]
        where = "it is hidden" if len(path) == 1 else f"{hidden.id!r} in its closure is hidden (via {' -> '.join(ids)})"
        raise RequiredHiddenError(
            f"required node {ids[0]!r} cannot be selected for role {self.profile.role!r}: {where}: "
            f"{hidden_why(self.profile, hidden)}; no partial plan is made",
            node_id=ids[0],
            hidden_id=hidden.id,
            path=ids,
        )

    def _raise_over_budget(self, root: int, required: list[int]) -> NoReturn:
        a, bound = self.arrays, self.fail_bound
        seen = set(required)
        stack = list(required)
        while stack:
            for dep in a.deps[stack.pop()]:
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        sizes = (a.history, a.tokens, a.chars, a.nbytes)
        totals = [checked_add("required closure", *(sizes[code][i] for i in seen)) for code in range(4)]
        totals.append(len(seen))
        bounds = self.bounds
        limits = (bounds.max_history_groups, self.budget.usable, bounds.max_chars, bounds.max_bytes, bounds.max_nodes)
        available = limits[bound] or 0
        reason, node_id = BOUND_REASONS[bound], self.graph.nodes[root].id
        raise RequiredOverBudgetError(
            f"required material does not fit ({reason.value}): the closures of all required nodes need "
            f"{totals[bound]} {UNITS[bound]} but only {available} are available; it overflowed at required "
            f"node {node_id!r}. Required material is never dropped: enlarge the window or bound, or reduce it",
            node_id=node_id,
            bound=reason,
            required=totals[bound],
            available=available,
            required_tokens=totals[TOKENS],
            available_tokens=self.budget.usable,
        )

    # --- result ---------------------------------------------------------------------

    def _plan(self) -> SelectionPlan:
        a, order = self.arrays, self.order
        accounting = BudgetAccounting.of(
            self.budget,
            tokens=checked_add("selected tokens", *(a.tokens[i] for i in order)),
            chars=sum(a.chars[i] for i in order),
            nbytes=sum(a.nbytes[i] for i in order),
            nodes=len(order),
            history=sum(a.history[i] for i in order),
        )
        nodes = self.graph.nodes
        return SelectionPlan(
            profile=self.profile,
            budget=self.budget,
            bounds=self.bounds,
            selected=tuple(nodes[i].id for i in order),
            explanations=ExplanationMap(self.graph, self.profile, self.outcome),
            accounting=accounting,
            graph=self.graph,
        )
