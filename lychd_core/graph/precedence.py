"""Admission precedence: the order in which candidate roots are tried.

The order is :func:`precedence_key`: authority, requirement, priority, relevance and
recency descending, then id ascending. A graph keeps a :class:`PrecedenceIndex`: its nodes
grouped into *tiers*, one per (authority, requirement, priority) combination, in one
linear pass when the graph is built. Ordering is then lazy, tier by tier: selection
often stops after a few hundred roots once the budget is spent, so it orders only the
tiers it reaches. Within a tier, recency usually follows the order nodes were made in,
and then the tier needs no sort at all; otherwise it is sorted on its own.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from operator import lt

from lychd_core.graph.nodes import ContextNode
from lychd_core.vocabulary import Requirement

_HALF = 2**63


def precedence_key(node: ContextNode) -> tuple[int, int, int, int, int, str]:
    """Admission precedence, smallest first: authority, requirement, priority, relevance, recency
    descending; id ascending."""
    return (-node.authority, -node.requirement, -node.priority, -node.relevance, -node.recency, node.id)


def tier_key(node: ContextNode) -> int:
    """Authority, requirement and priority (descending) as one integer, smallest first."""
    return (14 - 3 * node.authority - node.requirement) << 64 | (_HALF - 1 - node.priority)


@dataclass(frozen=True, slots=True)
class PrecedenceIndex:
    """What ordering a graph's nodes by :func:`precedence_key` needs, indexed by position."""

    tiers: tuple[tuple[int, ...], ...]
    """The positions of each tier's nodes, ascending; tiers in precedence order."""
    requirements: tuple[Requirement, ...]
    """Each tier's requirement (part of its key, so shared by all its nodes)."""
    recency: array[int]
    recency_unique: bool
    """No two nodes share a recency, so ids never need comparing."""
    recency_ascending: bool
    """Recency strictly grows with position: descending recency is descending position."""
    relevance: array[int] | None = None
    """Each node's relevance, or ``None`` when every node's is 0 (the unranked order)."""

    @classmethod
    def of(cls, nodes: Sequence[ContextNode]) -> PrecedenceIndex:
        keys = [tier_key(node) for node in nodes]
        rank = {key: position for position, key in enumerate(sorted(set(keys)))}
        members: list[list[int]] = [[] for _ in rank]
        for position, key in enumerate(keys):
            members[rank[key]].append(position)
        recency = array("q", [node.recency for node in nodes])
        ascending = all(map(lt, recency, islice(recency, 1, None)))
        relevance = array("q", [node.relevance for node in nodes])
        return cls(
            relevance=relevance if any(relevance) else None,
            tiers=tuple(map(tuple, members)),
            requirements=tuple(nodes[tier[0]].requirement for tier in members),
            recency=recency,
            recency_unique=ascending or len(set(recency)) == len(nodes),
            recency_ascending=ascending,
        )

    def order(self, requirements: Collection[Requirement], ids: Sequence[str]) -> Iterator[int]:
        """Positions of the nodes with one of ``requirements``, in precedence order; each
        tier is ordered only when the caller reaches it."""
        for tier, requirement in zip(self.tiers, self.requirements, strict=True):
            if requirement in requirements:
                yield from self._by_recency(tier, ids)

    def _by_recency(self, tier: tuple[int, ...], ids: Sequence[str]) -> Sequence[int]:
        """``tier`` (ascending positions) by relevance and recency descending, then id ascending."""
        if self.relevance is not None and any(map(self.relevance.__getitem__, tier)):
            relevance, recency = self.relevance, self.recency
            return sorted(tier, key=lambda i: (-relevance[i], -recency[i], ids[i]))
        if self.recency_ascending:
            return tier[::-1]
        positions = list(tier)
        if not self.recency_unique:
            positions.sort(key=ids.__getitem__)
        positions.sort(key=self.recency.__getitem__, reverse=True)  # reverse=True keeps ties stable
        return positions
