"""Planning resolutions against the room the selector will have: the budget spent by value.

Given the ranked files (best first), each file's combined score, the sizes of its views
(full first, then coarser) and the characters optional material can use, choose one
view per file:

1. *scored files, in rank order*: each gets the finest of its views that still fits
   what the files ranked above it left. A better-ranked file is never made coarser for
   a worse-ranked one, and a file whose full view does not fit takes a coarser one
   rather than none;
2. *the map*: the room left then buys views of the files further down. It is not a
   fixed share: it is what remains once every better-ranked file has its finest view
   that fits, so it grows when the top files are small and vanishes when they fill
   the room;
3. *unscored files* (score 0, in rank order) get views only in the room every scored
   file left: a file the query gave no score never takes room a scored file needs.

The plan only orders the nodes: per file in that order, its planned view, then its
coarser views as fallbacks (finest first); every view finer than a file's plan comes
after all of them. The selector still checks every bound exactly, so a plan that was
optimistic (other material took room) degrades to coarser views, never to cut text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ViewPlan:
    """The planned view of each file (``None``: none fits), files in rank order."""

    chosen: list[int | None]
    short: dict[int, tuple[int, int]] = field(default_factory=dict)
    """File index -> (characters its finest view needed, room left when it was planned), for
    each file planned below its finest view."""
    leftover: dict[int, int] = field(default_factory=dict)
    """Unscored file index -> the room every scored file left when it was planned a view."""


def plan_views(sizes: Sequence[Sequence[int]], scores: Sequence[int], room: int) -> ViewPlan:
    """Plan one view per file: scored files first in rank order, unscored ones in what is left."""
    chosen: list[int | None] = [None] * len(sizes)
    plan = ViewPlan(chosen)
    left = max(room, 0)
    scored = [i for i, score in enumerate(scores) if score > 0]
    unscored = [i for i, score in enumerate(scores) if score <= 0]
    for index in [*scored, *unscored]:
        views = sizes[index]
        level = next((level for level, size in enumerate(views) if size <= left), None)
        if level is not None and index in unscored:
            plan.leftover[index] = left
        if level != 0 and views:
            plan.short[index] = (views[0], left)
        if level is not None:
            chosen[index] = level
            left -= views[level]
    return plan


def view_relevance(chosen: Sequence[int | None], counts: Sequence[int], scores: Sequence[int]) -> list[list[int]]:
    """Relevance of each file's views (same shape as ``counts``), higher first: per file,
    scored files first and each group in rank order, its planned view then its coarser
    views; every view finer than a plan last."""
    order = [i for i, s in enumerate(scores) if s > 0] + [i for i, s in enumerate(scores) if s <= 0]
    first: list[tuple[int, int]] = []
    last: list[tuple[int, int]] = []
    for index in order:
        start = chosen[index] or 0
        first.extend((index, level) for level in range(start, counts[index]))
        last.extend((index, level) for level in range(start))
    sequence = first + last
    values = [[0] * count for count in counts]
    for position, (index, level) in enumerate(sequence):
        values[index][level] = len(sequence) - position
    return values
