"""``ContextGraph``: a validated DAG of context nodes.

Construction rejects duplicate ids, missing dependencies and cycles (naming the
cycle) before anything is selected. Every walk is iterative, so graphs of millions
of nodes never meet the recursion limit.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, chain

from lychd_core.digests import built_json_digest
from lychd_core.errors import DuplicateNodeError, GraphCycleError, GraphError, MissingDependencyError, UnknownNodeError
from lychd_core.graph.nodes import ContextNode
from lychd_core.graph.precedence import PrecedenceIndex
from lychd_core.vocabulary import ContextClass, Provenance, Requirement, token

CLASSES: tuple[ContextClass, ...] = tuple(ContextClass)
PROVENANCES: tuple[Provenance, ...] = tuple(Provenance)
_CLASS_CODE = {cls: code for code, cls in enumerate(CLASSES)}
_PROVENANCE_CODE = {prov: code for code, prov in enumerate(PROVENANCES)}


_ANY_REQUIREMENT = frozenset(Requirement)
_OPTIONAL = frozenset({Requirement.OPTIONAL})


@dataclass(frozen=True, slots=True)
class GraphArrays:
    """Index-based views of a graph for linear-time walks (index = position in ``graph.nodes``)."""

    deps: tuple[tuple[int, ...], ...]
    """Dependencies of each node, in the node's (sorted) order."""
    dep_offsets: array[int]
    dep_targets: array[int]
    """``deps`` again, flat: node ``i``'s are ``dep_targets[dep_offsets[i]:dep_offsets[i + 1]]``.
    Walks over big graphs miss the cache far less on these two arrays than on a million tuples."""
    dependents: tuple[tuple[int, ...], ...]
    """Direct dependents of each node, sorted by id (so walks do not depend on member order)."""
    topological: tuple[int, ...]
    """Dependencies before dependents."""
    tokens: array[int]
    chars: array[int]
    nbytes: array[int]
    sizes: array[int]
    """``history``, ``tokens``, ``chars`` and ``nbytes`` interleaved (``sizes[4 * i + bound]``)
    for walks: one cache line instead of four per node."""
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
    precedence: PrecedenceIndex
    floors: tuple[int, int, int, int, int]
    """The least any one node adds to each bound (history, tokens, characters, bytes,
    nodes): a remaining bound below its floor admits nothing more."""
    alternatives: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """For each node of an ``exclusive_group``, the group's other members (sparse)."""

    def own(self, i: int) -> tuple[int, ...]:
        """What node ``i`` alone adds to each bound: history, tokens, characters, bytes, nodes."""
        return (*self.sizes[4 * i : 4 * i + 4], 1)


class ContextGraph:
    """An immutable, validated DAG of :class:`ContextNode`."""

    __slots__ = ("_arrays", "_digest", "_ids", "_index", "_nodes", "_optional", "_precedence")

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
        self._ids = tuple(index)
        self._arrays = _build_arrays(self._nodes, index)
        self._digest: str | None = None
        self._precedence: tuple[int, ...] | None = None
        self._optional: tuple[int, ...] | None = None

    # --- reading ------------------------------------------------------------------

    @property
    def nodes(self) -> tuple[ContextNode, ...]:
        """Every node, in the order given."""
        return self._nodes

    @property
    def ids(self) -> tuple[str, ...]:
        """Every node id, in the order given."""
        return self._ids

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

    def precedence_order(self) -> tuple[int, ...]:
        """Node positions in precedence order (:func:`~lychd_core.graph.precedence.precedence_key`), computed once."""
        if self._precedence is None:
            self._precedence = tuple(self._arrays.precedence.order(_ANY_REQUIREMENT, self._ids))
        return self._precedence

    def optional_order(self) -> tuple[int, ...]:
        """Positions of the optional nodes (the candidate roots) in precedence order (computed once)."""
        if self._optional is None:
            self._optional = tuple(self.optional_candidates())
        return self._optional

    def optional_candidates(self) -> Iterator[int]:
        """:meth:`optional_order`, produced lazily (tier by tier) unless already computed:
        a caller that stops early orders only what it reached."""
        if self._optional is not None:
            return iter(self._optional)
        return self._arrays.precedence.order(_OPTIONAL, self._ids)

    @property
    def digest(self) -> str:
        """Digest of every node's metadata and content digest, independent of member order."""
        if self._digest is None:
            self._digest = built_json_digest(sorted(node_summary(node) for node in self._nodes))
        return self._digest


def node_summary(node: ContextNode) -> list[object]:
    """The digest-bound facts of one node (content enters through its digest).

    Relevance and the exclusive group enter only when set, so unranked graphs keep their digests."""
    extra: list[object] = []
    if node.relevance or node.exclusive_group is not None:
        extra = [node.relevance, node.exclusive_group]
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
        *extra,
    ]


_UNSIGNED_LIMITS = tuple((code, 1 << 8 * array(code).itemsize) for code in "BHIQ")
"""Each unsigned array type code, smallest items first, with the first value too big for it."""


def compact_array(values: list[int]) -> array[int]:
    """``values`` (non-negative) in the smallest unsigned items that hold them all: on big
    graphs the selector's random reads then miss the cache less."""
    largest = max(values, default=0)
    return array(next(code for code, limit in _UNSIGNED_LIMITS if largest < limit), values)


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
    tokens = compact_array([node.token_estimate for node in nodes])
    chars = compact_array([len(node.content) for node in nodes])
    nbytes = compact_array([node.byte_size for node in nodes])
    in_history = bytes(1 if node.context_class is history else 0 for node in nodes)
    return GraphArrays(
        deps=tuple(deps),
        dep_offsets=compact_array(list(accumulate(map(len, deps), initial=0))),
        dep_targets=compact_array([dep for resolved in deps for dep in resolved]),
        dependents=tuple(tuple(sorted(d, key=lambda i: nodes[i].id)) if len(d) > 1 else tuple(d) for d in dependents),
        topological=topological,
        tokens=tokens,
        chars=chars,
        nbytes=nbytes,
        sizes=compact_array(list(chain.from_iterable(zip(in_history, tokens, chars, nbytes, strict=True)))),
        history=in_history,
        class_codes=bytes(_CLASS_CODE[node.context_class] for node in nodes),
        provenance_codes=bytes(_PROVENANCE_CODE[node.provenance] for node in nodes),
        requirement=bytes(node.requirement for node in nodes),
        restricted=tuple(i for i, node in enumerate(nodes) if node.visible_to is not None),
        precedence=PrecedenceIndex.of(nodes),
        floors=(min(in_history, default=0), min(tokens, default=1), min(chars, default=1), min(nbytes, default=1), 1),
        alternatives=_alternatives(nodes, dependents),
    )


def _alternatives(nodes: tuple[ContextNode, ...], dependents: list[list[int]]) -> dict[int, tuple[int, ...]]:
    """Members of each exclusive group; nothing may depend on one (it might be excluded)."""
    groups: dict[str, list[int]] = {}
    for position, node in enumerate(nodes):
        if node.exclusive_group is not None:
            if dependents[position]:
                raise GraphError(
                    f"node {nodes[dependents[position][0]].id!r} depends on {node.id!r}, a member of exclusive "
                    f"group {node.exclusive_group!r}; alternatives may have no dependents"
                )
            groups.setdefault(node.exclusive_group, []).append(position)
    return {i: tuple(m for m in members if m != i) for members in groups.values() for i in members}


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
