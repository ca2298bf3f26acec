"""Planning resolutions against the room the selector will have.

Given the ranked files (best first), the sizes of each file's views (full first, then
coarser) and the characters optional material can use, choose one view per file:

1. *map*: the coarsest view of each file, in rank order, while the map stays within
   ``map_share`` percent of the room (first fit): the context then shows where the
   relevant names live across many files, as a repository map does;
2. *detail*: in rank order, each file moves to its finest view that still fits the room.

The plan only orders the nodes: every planned view comes first, in rank order, and every
other view of a file later as a fallback, finest first. The selector still checks every
bound exactly, so a plan that was optimistic (other material took room) degrades to
coarser views, never to cut text.
"""

from __future__ import annotations

from collections.abc import Sequence


def plan_views(
    sizes: Sequence[Sequence[int]], room: int, map_share: int, short: dict[int, tuple[int, int]] | None = None
) -> list[int | None]:
    """The planned view index of each file (``None``: none fits), files in rank order.

    ``short`` receives, for each file planned below its finest view, what the finest view
    needed and how much of the room remained when the file was planned."""
    chosen: list[int | None] = [None] * len(sizes)
    used = 0
    map_room = max(room, 0) * map_share // 100
    for index, views in enumerate(sizes):
        if views and used + views[-1] <= map_room:
            chosen[index] = len(views) - 1
            used += views[-1]
    for index, views in enumerate(sizes):
        current = chosen[index]
        held = 0 if current is None else views[current]
        for level, size in enumerate(views):
            if current is not None and level >= current:
                break
            if used - held + size <= room:
                chosen[index] = level
                used += size - held
                break
        if short is not None and chosen[index] != 0 and views:
            short[index] = (views[0], room - used + (0 if chosen[index] is None else views[chosen[index] or 0]))
    return chosen


def view_relevance(chosen: Sequence[int | None], counts: Sequence[int]) -> list[list[int]]:
    """Relevance of each file's views (same shape as ``counts``): planned views above every
    fallback, both in rank order; a file's fallbacks finest first."""
    n = len(counts)
    width = max(counts, default=1)
    top = n * width + 1
    found: list[list[int]] = []
    for index, (planned, count) in enumerate(zip(chosen, counts, strict=True)):
        fallback = (n - index) * width
        values = []
        for level in range(count):
            if level == planned:
                values.append(top + n - index)
            else:
                values.append(fallback)
                fallback -= 1
        found.append(values)
    return found
