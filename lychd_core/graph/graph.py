"""``ContextGraph``: a validated DAG of context nodes.

Construction rejects duplicate ids, missing dependencies and cycles (naming the
cycle) before anything is selected. Every walk is iterative, so graphs of millions
of nodes never meet the recursion limit.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from lychd_core.digests import json_digest
from lychd_core.errors import GraphError
from lychd_core.gcpause import cyclic_gc_paused
from lychd_core.graph.nodes import ContextNode
from lychd_core.vocabulary import ContextClass, Provenance, Requirement, token


class DuplicateNodeError(GraphError):
    """Two nodes share one id."""

    def __init__(self, message: str, *, node_id: str) -> None:
        super().__init__(message)
        self.node_id = node_id


class MissingDependencyError(GraphError):
    """A node depends on an id that is not in the graph."""

    def __init__(self, message: str, *, node_id: str, missing: str) -> None:
        super().__init__(message)
        self.node_id = node_id
        self.missing = missing


class GraphCycleError(GraphError):
    """The dependencies form a cycle; ``cycle`` lists it, first id repeated last."""

    def __init__(self, message: str, *, cycle: tuple[str, ...]) -> None:
        super().__init__(message)
        self.cycle = cycle


class UnknownNodeError(GraphError, LookupError):
    """An id that is not a node of the graph."""


CLASSES: tuple[ContextClass, ...] = tuple(ContextClass)
PROVENANCES: tuple[Provenance, ...] = tuple(Provenance)
_CLASS_CODE = {cls: code for code, cls in enumerate(CLASSES)}
_PROVENANCE_CODE = {prov: code for code, prov in enumerate(PROVENANCES)}


def precedence_key(node: ContextNode) -> tuple[int, int, int, int, str]:
    """Admission precedence, smallest first: authority, requirement, priority, recency descending; id ascending."""
    return (-node.authority, -node.requirement, -node.priority, -node.recency, node.id)


_HALF = 2**63


def packed_key(node: ContextNode) -> int:
    """The numeric part of :func:`precedence_key` as one integer: each field shifted into its
    own bit range, so integer order is tuple order (ids then break ties)."""
    return (
        (14 - 3 * node.authority - node.requirement) << 128
        | (_HALF - 1 - node.priority) << 64
        | (_HALF - 1 - node.recency)
    )


def _sort_by_precedence(positions: list[int], keys: Sequence[int], nodes: tuple[ContextNode, ...]) -> array[int]:
    """``sorted(positions, key=lambda i: precedence_key(nodes[i]))``, comparing ids only on ties."""
    if len({keys[i] for i in positions}) == len(positions):
        return array("q", sorted(positions, key=keys.__getitem__))
    return array("q", sorted(positions, key=lambda i: (keys[i], nodes[i].id)))


@dataclass(frozen=True, slots=True)
class GraphArrays:
    """Index-based views of a graph for linear-time walks (index = position in ``graph.nodes``)."""

    deps: tuple[tuple[int, ...], ...]
    """Dependencies of each node, in the node's (sorted) order."""
    dependents: tuple[tuple[int, ...], ...]
    """Direct dependents of each node, sorted by id (so walks do not depend on member order)."""
    topological: tuple[int, ...]
    """Dependencies before dependents."""
    tokens: array[int]
    chars: array[int]
    nbytes: array[int]
    history: bytes
    """1 for nodes of class ``history`` (they count against the turn window), else 0."""
    class_codes: bytes
    """Position of each node's class in ``CLASSES``."""
    provenance_codes: bytes
    """Position of each node's provenance in ``PROVENANCES``."""
    requirement: bytes
    """Each node's ``Requirement`` value."""
    restricted: tuple[int, ...]
    """Nodes with their own ``visible_to``."""
    keys: tuple[int, ...]
    """Each node's :func:`packed_key`."""


class ContextGraph:
    """An immutable, validated DAG of :class:`ContextNode`."""

    __slots__ = ("_arrays", "_digest", "_index", "_nodes", "_optional", "_precedence")

    def __init__(self, nodes: Iterable[ContextNode]) -> None:
        self._nodes: tuple[ContextNode, ...] = tuple(nodes)
        index: dict[str, int] = {}
        for position, node in enumerate(self._nodes):
            if not isinstance(node, ContextNode):
                raise GraphError(f"graph member {position} is a {type(node).__name__}, not a ContextNode")
            if node.id in index:
                raise DuplicateNodeError(
                    f"duplicate node id {node.id!r} (members {index[node.id]} and {position}); ids must be unique",
                    node_id=node.id,
                )
            index[node.id] = position
        self._index = index
        with cyclic_gc_paused():  # the arrays are acyclic; a full collection would re-walk every node
            self._arrays = _build_arrays(self._nodes, index)
        self._digest: str | None = None
        self._precedence: array[int] | None = None
        self._optional: array[int] | None = None

    # --- reading ------------------------------------------------------------------

    @property
    def nodes(self) -> tuple[ContextNode, ...]:
        """Every node, in the order given."""
        return self._nodes

    @property
    def arrays(self) -> GraphArrays:
        return self._arrays

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self) -> Iterator[ContextNode]:
        return iter(self._nodes)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._index

    def node(self, node_id: str) -> ContextNode:
        """The node with ``node_id``; ``UnknownNodeError`` if there is none."""
        return self._nodes[self.position(node_id)]

    __getitem__ = node

    def position(self, node_id: str) -> int:
        """Index of ``node_id`` in :attr:`nodes`."""
        try:
            return self._index[node_id]
        except (KeyError, TypeError):
            raise UnknownNodeError(f"no node {node_id!r} in this graph of {len(self)} nodes") from None

    def index_of(self, node_id: str) -> int | None:
        """Index of ``node_id`` in :attr:`nodes`, or ``None``."""
        return self._index.get(node_id)

    def closure(self, node_id: str) -> tuple[str, ...]:
        """``node_id`` and everything it depends on, transitively, sorted by id."""
        deps = self._arrays.deps
        start = self.position(node_id)
        seen = {start}
        stack = [start]
        while stack:
            for dep in deps[stack.pop()]:
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return tuple(sorted(self._nodes[i].id for i in seen))

    def dependents(self, node_id: str) -> tuple[str, ...]:
        """Ids of the nodes that depend on ``node_id`` directly, sorted."""
        return tuple(sorted(self._nodes[i].id for i in self._arrays.dependents[self.position(node_id)]))

    def topological_order(self) -> tuple[str, ...]:
        """Every id, dependencies before dependents."""
        return tuple(self._nodes[i].id for i in self._arrays.topological)

    def precedence_order(self) -> Sequence[int]:
        """Node positions sorted by :func:`precedence_key` (computed once)."""
        if self._precedence is None:
            self._precedence = _sort_by_precedence(list(range(len(self))), self._arrays.keys, self._nodes)
        return self._precedence

    def optional_order(self) -> Sequence[int]:
        """Positions of the optional nodes (the candidate roots) in precedence order (computed once)."""
        if self._optional is None:
            requirement, optional = self._arrays.requirement, Requirement.OPTIONAL
            positions = [i for i in range(len(self)) if requirement[i] == optional]
            self._optional = _sort_by_precedence(positions, self._arrays.keys, self._nodes)
        return self._optional

    @property
    def digest(self) -> str:
        """Digest of every node's metadata and content digest, independent of member order."""
        if self._digest is None:
            self._digest = json_digest(sorted(node_summary(node) for node in self._nodes))
        return self._digest


def node_summary(node: ContextNode) -> list[object]:
    """The digest-bound facts of one node (content enters through its digest)."""
    return [
        node.id,
        node.digest,
        node.provenance.value,
        token(node.authority),
        token(node.trust),
        node.context_class.value,
        token(node.requirement),
        node.priority,
        node.token_estimate,
        node.recency,
        None if node.visible_to is None else sorted(node.visible_to),
        list(node.dependencies),
    ]


def _build_arrays(nodes: tuple[ContextNode, ...], index: dict[str, int]) -> GraphArrays:
    deps: list[tuple[int, ...]] = []
    dependents: list[list[int]] = [[] for _ in nodes]
    for position, node in enumerate(nodes):
        try:
            resolved = tuple(index[dep] for dep in node.dependencies)
        except KeyError:
            missing = next(dep for dep in node.dependencies if dep not in index)
            raise MissingDependencyError(
                f"node {node.id!r} depends on {missing!r}, which is not in the graph; add it or drop the dependency",
                node_id=node.id,
                missing=missing,
            ) from None
        deps.append(resolved)
        for dep in resolved:
            dependents[dep].append(position)
    topological = _topological(nodes, deps, dependents)
    history = ContextClass.HISTORY
    return GraphArrays(
        deps=tuple(deps),
        dependents=tuple(tuple(sorted(d, key=lambda i: nodes[i].id)) if len(d) > 1 else tuple(d) for d in dependents),
        topological=topological,
        tokens=array("q", [node.token_estimate for node in nodes]),
        chars=array("q", [len(node.content) for node in nodes]),
        nbytes=array("q", [node.byte_size for node in nodes]),
        history=bytes(1 if node.context_class is history else 0 for node in nodes),
        class_codes=bytes(_CLASS_CODE[node.context_class] for node in nodes),
        provenance_codes=bytes(_PROVENANCE_CODE[node.provenance] for node in nodes),
        requirement=bytes(node.requirement for node in nodes),
        restricted=tuple(i for i, node in enumerate(nodes) if node.visible_to is not None),
        keys=tuple(packed_key(node) for node in nodes),
    )


def _topological(
    nodes: tuple[ContextNode, ...], deps: list[tuple[int, ...]], dependents: list[list[int]]
) -> tuple[int, ...]:
    """Kahn's algorithm; a leftover node means a cycle, which is found and named."""
    waiting = [len(d) for d in deps]
    order = [i for i, count in enumerate(waiting) if count == 0]
    cursor = 0
    while cursor < len(order):
        for dependent in dependents[order[cursor]]:
            waiting[dependent] -= 1
            if waiting[dependent] == 0:
                order.append(dependent)
        cursor += 1
    if len(order) < len(nodes):
        cycle = _find_cycle(nodes, deps, waiting)
        raise GraphCycleError(
            f"dependency cycle: {' -> '.join(cycle)} (each node depends on the next); break one edge",
            cycle=cycle,
        )
    return tuple(order)


def _find_cycle(nodes: tuple[ContextNode, ...], deps: list[tuple[int, ...]], waiting: list[int]) -> tuple[str, ...]:
    # Every leftover node still waits on a leftover dependency, so following them must loop.
    current = min((i for i, count in enumerate(waiting) if count > 0), key=lambda i: nodes[i].id)
    seen_at: dict[int, int] = {}
    path: list[int] = []
    while current not in seen_at:
        seen_at[current] = len(path)
        path.append(current)
        current = next(dep for dep in deps[current] if waiting[dep] > 0)
    loop = [*path[seen_at[current] :], current]
    return tuple(nodes[i].id for i in loop)
