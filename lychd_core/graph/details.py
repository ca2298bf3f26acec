"""Turning the selector's per-node state into one :class:`Explanation` per node."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from lychd_core.errors import SelectionError
from lychd_core.graph.budget import MAX_INT
from lychd_core.graph.explain import Amounts, Bound, ClosureNeeds, Explanation, HiddenBy, HiddenRule, SelectionReason
from lychd_core.graph.graph import CLASSES, PROVENANCES, ContextGraph, GraphArrays
from lychd_core.graph.nodes import ContextNode
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import ContextClass, OmissionReason, Provenance, Requirement

# Bound codes index the selector's arrays (``sizes[4 * i + code]``, ``remaining[code]``).
HISTORY, TOKENS, CHARS, BYTES, NODES = range(5)
BOUNDS = (Bound.TURN_WINDOW, Bound.TOKENS, Bound.CHARACTERS, Bound.BYTES, Bound.NODES)
"""The :class:`Bound` of each code."""
CHECK_ORDER = (TOKENS, NODES, CHARS, BYTES, HISTORY)
"""The codes in ``BOUND_ORDER``: a failed admission reports the first bound, in this
order, that the counted closure exceeds."""
BOUND_REASONS = tuple(bound.reason for bound in BOUNDS)
UNITS = tuple(bound.unit for bound in BOUNDS)


@lru_cache(maxsize=64)
def hidden_tables(
    visible_classes: frozenset[ContextClass], visible_provenances: frozenset[Provenance]
) -> tuple[bytes, bytes]:
    """Translation tables (256 bytes) giving 1 for each class code and each provenance code a
    role profile hides, else 0: made once per profile's visibility, not per selection."""
    hidden_class = bytes(0 if cls in visible_classes else 1 for cls in CLASSES).ljust(256, b"\0")
    hidden_provenance = bytes(0 if p in visible_provenances else 1 for p in PROVENANCES).ljust(256, b"\0")
    return hidden_class, hidden_provenance


def first_exceeded(counted: Sequence[int], remaining: Sequence[int]) -> int:
    """The first bound code, in ``CHECK_ORDER``, whose count exceeds what remains (-1: none)."""
    return next((code for code in CHECK_ORDER if counted[code] > remaining[code]), -1)


def closure_totals(arrays: GraphArrays, root: int, state: bytes | bytearray) -> tuple[int, ...]:
    """What ``root`` and its dependencies not selected in ``state`` (a selection state per node)
    add to each bound: history groups, tokens, characters, bytes and nodes."""
    offsets, targets, sizes = arrays.dep_offsets, arrays.dep_targets, arrays.sizes
    totals, seen, stack = [0, 0, 0, 0, 0], {root}, [root]
    while stack:
        v = stack.pop()
        for code in range(4):
            totals[code] += sizes[4 * v + code]
        totals[NODES] += 1
        for d in targets[offsets[v] : offsets[v + 1]]:
            if d not in seen and state[d] not in SELECTION_STATES:
                seen.add(d)
                stack.append(d)
    return tuple(totals)


def earliest_exceeded(
    arrays: GraphArrays, root: int, state: bytes | bytearray, bound: int, remaining: Sequence[int]
) -> tuple[int, tuple[int, ...]] | None:
    """When ``root``'s whole unselected closure exceeds a bound earlier in check order than
    ``bound`` (the first its counted part exceeds), that bound and the closure's totals."""
    earlier = CHECK_ORDER[: CHECK_ORDER.index(bound)]
    if not earlier:
        return None
    totals = closure_totals(arrays, root, state)
    first = first_exceeded(totals, remaining)
    return (first, totals) if first in earlier else None


def restate_at_turn(
    outcome: Outcome, arrays: GraphArrays, node: int, state: bytes | bytearray, left: tuple[int, ...], early: set[int]
) -> None:
    """Explain ``node``, doomed on its own during another root's walk (one of ``early``), as a
    probe at its own turn would, with ``left`` remaining: less may remain since, and more of its
    closure be selected. Its own sizes suffice when they alone exceed the token budget, the
    first bound in check order."""
    early.discard(node)
    own = arrays.own(node)
    counted = own if own[TOKENS] > left[TOKENS] else closure_totals(arrays, node, state)
    bound = first_exceeded(counted, left)
    if bound >= 0:  # always: a doomed closure never fits again
        outcome.doomed[node] = bound + 1
        outcome.failures[node] = (counted, left)


# Selection states (0 = not selected) and visibility states (0 = visible).
REQUIRED_ROOT, REQUIRED_DEPENDENCY, OPTIONAL_ROOT, OPTIONAL_DEPENDENCY = 1, 2, 3, 4
SELECTION_STATES = frozenset({REQUIRED_ROOT, REQUIRED_DEPENDENCY, OPTIONAL_ROOT, OPTIONAL_DEPENDENCY})
HIDDEN, HIDDEN_DEPENDENCY = 1, 2

_SELECTED = {
    REQUIRED_ROOT: SelectionReason.REQUIRED_ROOT,
    REQUIRED_DEPENDENCY: SelectionReason.REQUIRED_DEPENDENCY,
    OPTIONAL_ROOT: SelectionReason.OPTIONAL_ROOT,
    OPTIONAL_DEPENDENCY: SelectionReason.OPTIONAL_DEPENDENCY,
}


Failure = tuple[tuple[int, ...] | None, tuple[int, ...]]
"""What the walk counted before it stopped (``None``: the node's own sizes, no walk), and
every bound's remaining amount then."""


@dataclass(slots=True)
class Outcome:
    """Per-node state, indexed like ``graph.nodes``; sparse facts in dicts."""

    state: bytearray
    """Selection state, 0 when not selected."""
    blocked: bytearray
    """``HIDDEN``, ``HIDDEN_DEPENDENCY`` or 0."""
    doomed: bytearray
    """Bound code + 1 for a node whose closure can never fit, else 0."""
    cause: dict[int, int]
    """Blocked or doomed by a dependency: that dependency."""
    order: list[int]
    """Selected nodes in admission order ..."""
    admissions: list[tuple[int, int]]
    """... in runs, one per admitted closure: where the run ends in ``order``, and its root."""
    failures: dict[int, Failure]
    """Nodes doomed on their own (not through a doomed dependency): what their closure was
    counted to need and what remained. Few nodes fail this way, so a dict beats arrays the
    size of the graph."""
    excluded: dict[int, int] = field(default_factory=dict)
    """Alternatives closed because another member of their exclusive group was selected: that member."""
    final: tuple[int, ...] = ()
    """Every bound's remaining amount when selection ended; explains the roots never reached."""

    @classmethod
    def empty(cls, n: int) -> Outcome:
        return cls(
            state=bytearray(n),
            blocked=bytearray(n),
            doomed=bytearray(n),
            cause={},
            order=[],
            admissions=[],
            failures={},
        )


def hidden_by(profile: RoleProfile, node: ContextNode) -> HiddenBy:
    """Why ``profile`` hides ``node``."""
    role = profile.role
    if node.context_class not in profile.visible_classes:
        return HiddenBy(HiddenRule.CLASS, role, node.context_class.value)
    if node.provenance not in profile.visible_provenances:
        return HiddenBy(HiddenRule.PROVENANCE, role, node.provenance.value)
    return HiddenBy(HiddenRule.VISIBLE_TO, role, tuple(sorted(node.visible_to or ())))


def hidden_why(profile: RoleProfile, node: ContextNode) -> str:
    """Why ``profile`` hides ``node``, in words."""
    return hidden_by(profile, node).prose()


def amounts(counts: tuple[int, ...]) -> Amounts:
    """Bound codes' amounts as :class:`Amounts`; above ``MAX_INT`` (an unset bound) is ``None``."""

    def value(code: int) -> int | None:
        return counts[code] if counts[code] <= MAX_INT else None

    return Amounts(value(TOKENS), value(NODES), value(CHARS), value(BYTES), value(HISTORY))


def needs(counts: tuple[int, ...], complete: bool) -> ClosureNeeds:
    """Counted needs, capped at ``MAX_INT`` (then a lower bound, which stays true)."""
    capped = tuple(min(value, MAX_INT) for value in counts)
    exact = complete and capped == tuple(counts)
    return ClosureNeeds(
        Amounts(capped[TOKENS], capped[NODES], capped[CHARS], capped[BYTES], capped[HISTORY]), not exact
    )


class ExplanationMap(Mapping[str, Explanation]):
    """Every node's explanation, in graph order, built from the selector's state on first read.

    The state is complete and immutable when the plan is made; materializing a million
    explanation objects nobody reads would only cost time and memory.
    """

    __slots__ = ("_cache", "_graph", "_outcome", "_profile", "_roots")

    def __init__(self, graph: ContextGraph, profile: RoleProfile, outcome: Outcome) -> None:
        self._graph, self._profile, self._outcome = graph, profile, outcome
        self._cache: dict[int, Explanation] = {}
        self._roots: dict[int, int] | None = None

    def __getitem__(self, node_id: str) -> Explanation:
        position = self._graph.index_of(node_id)
        if position is None:
            raise KeyError(node_id)
        return self.at(position)

    def __iter__(self) -> Iterator[str]:
        return (node.id for node in self._graph.nodes)

    def __len__(self) -> int:
        return len(self._graph)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._graph

    def __repr__(self) -> str:
        return f"<ExplanationMap of {len(self)} nodes>"

    def selected_at(self, i: int) -> bool:
        """Whether ``graph.nodes[i]`` is selected, without building its explanation."""
        return bool(self._outcome.state[i])

    def left_out_for_room(self, i: int) -> bool:
        """Whether ``graph.nodes[i]`` is omitted by a bound (tokens, characters, bytes, nodes,
        turn window), without building its explanation: every other reason is known first."""
        outcome = self._outcome
        if outcome.state[i] or outcome.blocked[i] or i in outcome.excluded:
            return False
        return self._graph.nodes[i].requirement is not Requirement.DEPENDENCY_REQUIRED

    def at(self, i: int) -> Explanation:
        """The explanation of ``graph.nodes[i]``."""
        cached = self._cache.get(i)
        if cached is None:
            cached = self._cache[i] = self._explain(i)
        return cached

    def _explain(self, i: int) -> Explanation:
        nodes, outcome = self._graph.nodes, self._outcome
        node, cause = nodes[i], outcome.cause
        tokens, chars = node.token_estimate, len(node.content)
        selected = outcome.state[i]
        if selected:
            root = nodes[self._root_of(i)].id
            return Explanation(node.id, True, _SELECTED[selected], tokens, chars, root=root)
        blocked, doomed = outcome.blocked[i], outcome.doomed[i]
        if blocked == HIDDEN:
            why = hidden_by(self._profile, node)
            return Explanation(node.id, False, OmissionReason.HIDDEN, tokens, chars, hidden=node.id, hidden_by=why)
        if blocked == HIDDEN_DEPENDENCY:
            end = cause[i]
            while outcome.blocked[end] == HIDDEN_DEPENDENCY:
                end = cause[end]
            return Explanation(
                node.id,
                False,
                OmissionReason.HIDDEN_DEPENDENCY,
                tokens,
                chars,
                blocking=nodes[cause[i]].id,
                hidden=nodes[end].id,
                hidden_by=hidden_by(self._profile, nodes[end]),
            )
        if i in outcome.excluded:
            chosen = nodes[outcome.excluded[i]].id
            return Explanation(node.id, False, OmissionReason.ALTERNATIVE_SELECTED, tokens, chars, blocking=chosen)
        if node.requirement is Requirement.DEPENDENCY_REQUIRED:
            return Explanation(node.id, False, OmissionReason.NOT_NEEDED, tokens, chars)
        if doomed and i not in outcome.failures:
            bound = BOUNDS[doomed - 1]
            return Explanation(node.id, False, bound.reason, tokens, chars, bound=bound, blocking=nodes[cause[i]].id)
        code = doomed - 1
        if doomed:
            counted, remained = outcome.failures[i]
        else:
            counted, remained, code = self._never_reached(i)
        own, complete = self._graph.arrays.own(i), False
        if counted is None or counted == own:
            # Only the node itself was counted: that is its whole closure when it has no dependencies.
            counted, complete = own, self._has_no_dependencies(i)
        bound = BOUNDS[code]
        return Explanation(
            node.id,
            False,
            bound.reason,
            tokens,
            chars,
            bound=bound,
            needs=needs(counted, complete),
            remaining=amounts(remained),
        )

    def _has_no_dependencies(self, i: int) -> bool:
        offsets = self._graph.arrays.dep_offsets
        return bool(offsets[i] == offsets[i + 1])

    def _root_of(self, i: int) -> int:
        """The root whose admitted closure brought the selected node ``i`` in."""
        if self._roots is None:
            order, self._roots, start = self._outcome.order, {}, 0
            for end, root in self._outcome.admissions:
                self._roots.update(dict.fromkeys(order[start:end], root))
                start = end
        return self._roots[i]

    def _never_reached(self, i: int) -> tuple[tuple[int, ...] | None, tuple[int, ...], int]:
        """What was counted, what remained and the bound code for a root the selector stopped
        before: the loop ended once no single node could fit, so its own sizes already exceed
        a final amount; its whole closure may exceed an earlier bound in check order."""
        arrays, final = self._graph.arrays, self._outcome.final
        code = first_exceeded(arrays.own(i), final)
        if code < 0:  # pragma: no cover - the selector stops only when nothing fits
            raise SelectionError(f"internal error: node {self._graph.nodes[i].id!r} was neither selected nor omitted")
        earlier = earliest_exceeded(arrays, i, self._outcome.state, code, final)
        return (None, final, code) if earlier is None else (earlier[1], final, earlier[0])
