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
and neither can anything that depends on it. A walk that meets a doomed node stops and
dooms its whole path. A walk that overflows is binary-searched for its deepest doomed
node, and the path down to it is doomed, so later walks stop early; a root too big on
its own is doomed without a walk. Doom spreads lazily, through the roots that meet it,
never eagerly through every dependent. Once some bound has less left than any single
node adds to it, nothing more can fit and the loop stops; the roots it never reached
are explained from that final state.
"""

from __future__ import annotations

from lychd_core.errors import SelectionError
from lychd_core.graph.budget import BudgetAccounting, SelectionBounds, TokenBudget
from lychd_core.graph.details import (
    BYTES,
    CHARS,
    CHECK_ORDER,
    HIDDEN,
    HIDDEN_DEPENDENCY,
    HISTORY,
    NODES,
    OPTIONAL_DEPENDENCY,
    OPTIONAL_ROOT,
    REQUIRED_DEPENDENCY,
    REQUIRED_ROOT,
    SELECTION_STATES,
    TOKENS,
    ExplanationMap,
    Outcome,
    earliest_exceeded,
    first_exceeded,
    hidden_tables,
    restate_at_turn,
)
from lychd_core.graph.explain import SelectionPlan
from lychd_core.graph.graph import ContextGraph
from lychd_core.graph.nodes import ContextNode
from lychd_core.graph.precedence import precedence_key
from lychd_core.graph.refusals import raise_hidden, raise_over_budget
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import Requirement

UNBOUNDED = 1 << 256
"""Remaining amount of a bound that was not set: larger than any possible sum."""

# A node's mark: OPEN (never settled), its selection state (REQUIRED_ROOT ... OPTIONAL_DEPENDENCY),
# CLOSED (blocked or doomed) or WALKED (counted by the current walk).
OPEN, CLOSED, WALKED = 0, 5, 6
_CLOSE_BLOCKED = bytes([OPEN] + [CLOSED] * 255)
_SELECTION_ONLY = bytes(code if code in SELECTION_STATES else 0 for code in range(256))


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
    return _Selector(graph, profile, budget, bounds).run()


class _Selector:
    def __init__(self, graph: ContextGraph, profile: RoleProfile, budget: TokenBudget, bounds: SelectionBounds):
        self.graph = graph
        self.profile = profile
        self.budget = budget
        self.bounds = bounds
        self.arrays = arrays = graph.arrays
        n = len(graph)
        self.outcome = Outcome.empty(n)
        self.mark = bytearray(n)
        """One byte per node (see ``OPEN``) that the hot loops read instead of several arrays."""
        # Set by a failed probe: the DFS path (each node depends on the next), and why.
        self.fail_path: list[int] = []
        self.fail_bound = -1
        self.fail_counted: tuple[int, ...] = ()
        self.fail_doomed = -1
        """The already doomed node the probe ran into, if that is why it failed."""
        self.early: set[int] = set()  # doomed on their own in another root's walk: restated at their turn

        def limit(value: int | None) -> int:
            return UNBOUNDED if value is None else value

        self.start = (
            limit(bounds.max_history_groups),
            budget.usable,
            limit(bounds.max_chars),
            limit(bounds.max_bytes),
            limit(bounds.max_nodes),
        )
        self.remaining = list(self.start)
        self.snapshot: tuple[int, ...] = self.start
        """``remaining`` as a tuple, refreshed by every admission: what failures record."""
        self.totals = (sum(arrays.history), sum(arrays.tokens), sum(arrays.chars), sum(arrays.nbytes), n)
        """Each bound's sum over the whole graph: a bound with at least this much left cannot be exceeded."""
        self.walked = (0, 0, 0, 0)
        """What the last probe that fit counted: history groups, tokens, characters, bytes."""

    # --- phases -------------------------------------------------------------------

    def run(self) -> SelectionPlan:
        self._apply_visibility()
        nodes, requirement = self.graph.nodes, self.arrays.requirement
        required, position = [], requirement.find(Requirement.REQUIRED)
        while position >= 0:
            required.append(position)
            position = requirement.find(Requirement.REQUIRED, position + 1)
        self._admit_required(sorted(required, key=lambda i: precedence_key(nodes[i])))
        if not self._spent():
            self._admit_optional()
        for node in sorted(self.early):  # not reached by the loop: their turn is the final state
            restate_at_turn(self.outcome, self.arrays, node, self.mark, self.snapshot, self.early)
        self.outcome.final = tuple(self.remaining)
        self.outcome.state[:] = self.mark.translate(_SELECTION_ONLY)
        return self._plan()

    def _spent(self) -> bool:
        """Whether some bound has less left than any single node adds to it: nothing more fits."""
        return any(map(int.__lt__, self.remaining, self.arrays.floors))

    def _admit_optional(self) -> None:
        """Try the optional roots in precedence order until none is left or nothing more fits."""
        mark, remaining, outcome = self.mark, self.remaining, self.outcome
        tokens = self.arrays.tokens
        doomed, failures = outcome.doomed, outcome.failures
        alternatives = self.arrays.alternatives
        for root in self.graph.optional_candidates():
            if mark[root]:
                if root in self.early:  # doomed in another root's walk: explained as of now, its turn
                    restate_at_turn(outcome, self.arrays, root, mark, self.snapshot, self.early)
                continue
            if tokens[root] > remaining[TOKENS]:
                # Too big on its own, the common failure (tokens come first): doomed without a walk, inline.
                mark[root], doomed[root] = CLOSED, TOKENS + 1
                failures[root] = (None, self.snapshot)
                continue
            if not self._consider(root):
                continue
            if root in alternatives:
                self._exclude(root, alternatives[root])
            if self._spent():
                return  # the roots not reached are explained from the final remaining amounts

    def _exclude(self, root: int, others: tuple[int, ...]) -> None:
        """``root`` was admitted: its group's other members, not yet settled, can no longer be."""
        mark, excluded = self.mark, self.outcome.excluded
        for other in others:
            if mark[other] == OPEN:
                mark[other], excluded[other] = CLOSED, root

    def _apply_visibility(self) -> None:
        """Mark hidden nodes, then everything depending on one (walking only what is blocked)."""
        profile, arrays, n = self.profile, self.arrays, len(self.graph)
        hidden_class, hidden_provenance = hidden_tables(profile.visible_classes, profile.visible_provenances)
        # Two byte-wise translations OR-ed as integers: no Python loop over the nodes.
        flags = int.from_bytes(arrays.class_codes.translate(hidden_class), "little") | int.from_bytes(
            arrays.provenance_codes.translate(hidden_provenance), "little"
        )
        blocked = self.outcome.blocked
        blocked[:] = flags.to_bytes(n, "little")
        nodes = self.graph.nodes
        for node in arrays.restricted:
            roles = nodes[node].visible_to
            if roles is not None and profile.role not in roles:
                blocked[node] = HIDDEN
        stack: list[int] = []
        position = blocked.find(HIDDEN)
        while position >= 0:
            stack.append(position)
            position = blocked.find(HIDDEN, position + 1)
        dependents, behind = arrays.dependents, []
        while stack:
            for dependent in dependents[stack.pop()]:
                if not blocked[dependent]:
                    blocked[dependent] = HIDDEN_DEPENDENCY
                    behind.append(dependent)
                    stack.append(dependent)
        deps, cause = arrays.deps, self.outcome.cause
        for node in behind:
            cause[node] = next(dep for dep in deps[node] if blocked[dep])  # the first, in sorted order
        self.mark[:] = blocked.translate(_CLOSE_BLOCKED)

    def _admit_required(self, required: list[int]) -> None:
        for root in required:
            if self.outcome.blocked[root]:
                raise_hidden(self.graph, self.profile, self.outcome, root)
        for root in required:
            if self.mark[root]:  # selected with an earlier required closure
                continue
            closure = self._probe(root)
            if closure is None:
                raise_over_budget(self.graph, self.budget, self.bounds, self.fail_bound, root, required)
            self._admit(root, closure, REQUIRED_ROOT, REQUIRED_DEPENDENCY)

    def _consider(self, root: int) -> bool:
        """Admit the unselected, unblocked, undoomed optional ``root`` (``True``) or doom it."""
        closure = self._probe(root)
        if closure is not None:
            self._admit(root, closure, OPTIONAL_ROOT, OPTIONAL_DEPENDENCY)
            return True
        if self.fail_doomed >= 0:
            self._doom_path(self.fail_path)
            return False
        self._doom(root, self.fail_bound)
        path = self.fail_path
        self._doom_path(path[: self._deepest_doomed(path) + 1])
        return False

    # --- probing ------------------------------------------------------------------

    def _probe(self, root: int) -> list[int] | None:
        """The unselected closure of ``root`` in post-order (dependencies first) if it fits
        every remaining bound; else ``None`` with ``fail_*`` set. Stops at the first excess.
        A closure that fits is left marked ``WALKED`` for the caller to admit or unwalk."""
        mark, arrays = self.mark, self.arrays
        offsets, targets, sizes = arrays.dep_offsets, arrays.dep_targets, arrays.sizes  # flat: fewer cache misses
        left_history, left_tokens, left_chars, left_bytes, left_nodes = self.remaining
        self.fail_doomed = -1
        at = 4 * root  # a node's four sizes (history groups, tokens, characters, bytes) start here
        history, tokens, chars, nbytes, nodes = sizes[at], sizes[at + 1], sizes[at + 2], sizes[at + 3], 1
        stack = [root]
        if (
            history > left_history
            or tokens > left_tokens
            or chars > left_chars
            or nbytes > left_bytes
            or nodes > left_nodes
        ):
            self._fail(stack, (history, tokens, chars, nbytes, nodes))
            return None
        mark[root] = WALKED
        pending = [iter(targets[offsets[root] : offsets[root + 1]])]  # per stack entry: dependencies not yet seen
        post: list[int] = []
        while pending:
            for dep in pending[-1]:
                seen = mark[dep]
                if seen:
                    if seen == CLOSED:  # doomed: an unblocked root's closure is never blocked
                        self.fail_path = [*stack, dep]
                        self.fail_doomed = dep
                        self._unwalk(post, stack)
                        return None
                    continue  # selected, or already counted in this walk
                mark[dep] = WALKED
                at = 4 * dep
                history += sizes[at]
                tokens += sizes[at + 1]
                chars += sizes[at + 2]
                nbytes += sizes[at + 3]
                nodes += 1
                stack.append(dep)
                if (
                    history > left_history
                    or tokens > left_tokens
                    or chars > left_chars
                    or nbytes > left_bytes
                    or nodes > left_nodes
                ):
                    self._unwalk(post, stack)
                    self._fail(stack, (history, tokens, chars, nbytes, nodes))
                    return None
                pending.append(iter(targets[offsets[dep] : offsets[dep + 1]]))
                break
            else:
                pending.pop()
                post.append(stack.pop())
        self.walked = (history, tokens, chars, nbytes)
        return post  # still marked WALKED: the caller admits it or unwalks it

    def _unwalk(self, *walked: list[int]) -> None:
        mark = self.mark
        for nodes in walked:
            for node in nodes:
                mark[node] = OPEN

    def _fail(self, path: list[int], counted: tuple[int, int, int, int, int]) -> None:
        """Record why the probe of ``path[0]`` stopped: the first bound, in the check order,
        that its closure exceeds (what the walk counted, finished when an earlier one may be)."""
        remaining = self.remaining
        bound = first_exceeded(counted, remaining)
        # The node that tipped the sum over, if too big on its own, can never fit: remember it.
        node = path[-1]
        own = self.arrays.own(node)
        if len(path) > 1 and own[bound] > remaining[bound] and not self.outcome.doomed[node]:
            self._doom(node, first_exceeded(own, remaining), counted=own)
            self.early.add(node)
        self.fail_path, (self.fail_bound, self.fail_counted) = path, self._earliest_bound(path[0], bound, counted)

    def _earliest_bound(self, root: int, bound: int, counted: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
        """The first bound in check order that ``root``'s whole unselected closure exceeds, with
        what it counts. A probe stops at its first excess, which can be a later bound than one
        the rest of the closure exceeds (the root alone over the character cap while root and
        dependencies are over the token budget): the explanation names the earliest."""
        earlier = CHECK_ORDER[: CHECK_ORDER.index(bound)]
        if not any(self.remaining[code] < self.totals[code] for code in earlier):
            return bound, counted  # no earlier bound can be exceeded, whatever the closure holds
        found = earliest_exceeded(self.arrays, root, self.mark, bound, self.remaining)
        return (bound, counted) if found is None else found

    def _deepest_doomed(self, path: list[int]) -> int:
        """Binary search ``path`` for the index of its deepest doomed node (0: only the root),
        dooming the nodes it probes.

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
            elif (closure := self._probe(node)) is not None:
                self._unwalk(closure)
                high = middle - 1
            else:
                if self.fail_doomed >= 0:
                    self._doom_path(self.fail_path)
                else:
                    self._doom(node, self.fail_bound)
                    self.early.add(node)
                deepest, low = middle, middle + 1
        return deepest

    def _doom(self, node: int, bound: int, *, blame: int = -1, counted: tuple[int, ...] | None = None) -> None:
        """Record that ``node`` can never fit ``bound``: on its own, or because ``blame``,
        one of its dependencies, cannot."""
        outcome = self.outcome
        outcome.doomed[node] = bound + 1
        self.mark[node] = CLOSED
        if blame >= 0:
            outcome.cause[node] = blame
        else:
            outcome.failures[node] = (self.fail_counted if counted is None else counted, self.snapshot)

    def _doom_path(self, path: list[int]) -> None:
        """``path[-1]`` is doomed and each earlier node depends on the next, so each is doomed
        too: blamed on the next, unless it already failed on its own."""
        doomed = self.outcome.doomed
        for k in range(len(path) - 2, -1, -1):
            if not doomed[path[k]]:
                self._doom(path[k], doomed[path[k + 1]] - 1, blame=path[k + 1])

    # --- admission ------------------------------------------------------------------

    def _admit(self, root: int, closure: list[int], root_state: int, dependency_state: int) -> None:
        """Select ``closure``, which the last probe walked and found to fit."""
        mark, remaining, outcome = self.mark, self.remaining, self.outcome
        for node in closure:
            mark[node] = dependency_state
        mark[root] = root_state
        history, tokens, chars, nbytes = self.walked
        remaining[HISTORY] -= history
        remaining[TOKENS] -= tokens
        remaining[CHARS] -= chars
        remaining[BYTES] -= nbytes
        remaining[NODES] -= len(closure)
        self.snapshot = tuple(remaining)
        outcome.order.extend(closure)
        outcome.admissions.append((len(outcome.order), root))

    # --- result ---------------------------------------------------------------------

    def _plan(self) -> SelectionPlan:
        # Every admission subtracted its closure from each remaining bound, and every
        # closure fit, so what was used is exactly the start minus what remains.
        used = [start - left for start, left in zip(self.start, self.remaining, strict=True)]
        order = self.outcome.order
        accounting = BudgetAccounting.of(
            self.budget,
            tokens=used[TOKENS],
            chars=used[CHARS],
            nbytes=used[BYTES],
            nodes=used[NODES],
            history=used[HISTORY],
        )
        return SelectionPlan(
            profile=self.profile,
            budget=self.budget,
            bounds=self.bounds,
            selected=tuple(map(self.graph.ids.__getitem__, order)),
            explanations=ExplanationMap(self.graph, self.profile, self.outcome),
            accounting=accounting,
            graph=self.graph,
        )
