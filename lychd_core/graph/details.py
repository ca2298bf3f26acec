"""Turning the selector's per-node state into one :class:`Explanation` per node."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from lychd_core.errors import SelectionError
from lychd_core.graph.explain import Explanation, OmissionReason, SelectionReason
from lychd_core.graph.graph import ContextGraph
from lychd_core.graph.nodes import ContextNode
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import Requirement

# Bound codes index these; a failed admission reports the first bound, in this order, it exceeds.
HISTORY, TOKENS, CHARS, BYTES, NODES = range(5)
BOUND_REASONS = (
    OmissionReason.OUTSIDE_TURN_WINDOW,
    OmissionReason.TOKEN_BUDGET,
    OmissionReason.CHARACTER_LIMIT,
    OmissionReason.BYTE_LIMIT,
    OmissionReason.NODE_LIMIT,
)
UNITS = ("history groups", "tokens", "characters", "bytes", "nodes")

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
    failures: dict[int, tuple[int, int]]
    """Nodes doomed on their own (not through a doomed dependency): the amount of their
    bound they were found to need at least, and the amount that remained. Few nodes
    fail this way, so a dict beats two arrays the size of the graph."""
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


def hidden_why(profile: RoleProfile, node: ContextNode) -> str:
    """Why ``profile`` hides ``node``."""
    role = profile.role
    if node.context_class not in profile.visible_classes:
        return f"role {role!r} does not see class {node.context_class.value!r}"
    if node.provenance not in profile.visible_provenances:
        return f"role {role!r} does not see provenance {node.provenance.value!r}"
    roles = ", ".join(sorted(node.visible_to or ()))
    return f"the node is visible only to roles [{roles}]"


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
            if selected == REQUIRED_ROOT:
                detail = "required"
            elif selected == OPTIONAL_ROOT:
                detail = "its whole unselected closure fit"
            else:
                kind = "required node" if selected == REQUIRED_DEPENDENCY else "optional root"
                detail = f"in the closure of {kind} {root!r}"
            return Explanation(node.id, True, _SELECTED[selected], tokens, chars, detail, root)
        reason: OmissionReason
        blocked, doomed = outcome.blocked[i], outcome.doomed[i]
        if blocked == HIDDEN:
            reason, detail = OmissionReason.HIDDEN, hidden_why(self._profile, node)
        elif blocked == HIDDEN_DEPENDENCY:
            reason = OmissionReason.HIDDEN_DEPENDENCY
            detail = f"its closure holds hidden material (through dependency {nodes[cause[i]].id!r})"
        elif i in outcome.excluded:
            reason = OmissionReason.ALTERNATIVE_SELECTED
            detail = f"an alternative of the same material, {nodes[outcome.excluded[i]].id!r}, was selected"
        elif node.requirement is Requirement.DEPENDENCY_REQUIRED:
            reason, detail = OmissionReason.NOT_NEEDED, "dependency-required, and no selected node depends on it"
        elif doomed:
            bound = doomed - 1
            reason = BOUND_REASONS[bound]
            if i in outcome.failures:
                counted, remained = outcome.failures[i]
                detail = f"its unselected closure needs at least {counted} {UNITS[bound]}; {remained} remained"
            else:
                detail = f"depends on {nodes[cause[i]].id!r}, whose closure cannot fit the {UNITS[bound]} bound"
        else:
            reason, detail = self._never_reached(i)
        return Explanation(node.id, False, reason, tokens, chars, detail)

    def _root_of(self, i: int) -> int:
        """The root whose admitted closure brought the selected node ``i`` in."""
        if self._roots is None:
            order, self._roots, start = self._outcome.order, {}, 0
            for end, root in self._outcome.admissions:
                self._roots.update(dict.fromkeys(order[start:end], root))
                start = end
        return self._roots[i]

    def _never_reached(self, i: int) -> tuple[OmissionReason, str]:
        """A root the selector stopped before: it ended once no single node could fit."""
        final = self._outcome.final
        own = self._graph.arrays.own(i)
        bound = next((b for b in range(len(own)) if final and own[b] > final[b]), None)
        if bound is None:  # pragma: no cover - the selector stops only when nothing fits
            raise SelectionError(f"internal error: node {self._graph.nodes[i].id!r} was neither selected nor omitted")
        detail = f"its unselected closure needs at least {own[bound]} {UNITS[bound]}; {final[bound]} remained"
        return BOUND_REASONS[bound], detail
