"""Planning resolutions against the room the selector will have: the budget spent by value.

Given the ranked files (best first), each file's combined score, the sizes of its views
(full first, then coarser) and the characters optional material can use, choose one
view per file by what each character buys:

- a file's *value* is its score discounted by the square of its rank (``score / rank²``:
  how likely a file is what the question is about falls off faster than its rank
  grows), and a view is worth a share of it: the full projection 100%, a verbatim file's structure outline
  80%, ``signatures`` 40%, ``names`` 30% (another profile's view 40%);
- starting from nothing, the plan repeatedly takes the move (a file to a finer view)
  that adds the most value per added character and still fits, until none does. So a
  top-ranked file goes to its full view as soon as that is the best use of the room,
  and a coarse view of a file further down is bought only while it buys more than
  upgrading a better-ranked file would: the map of coarse views is sized by what it
  buys, not by a fixed share;
- then the ranking's order is enforced where value per character went against it: while a
  scored file holds a view worth more than that of a better-ranked file, and the better-ranked
  file's cheapest view worth as much fits in what is left plus the room that view takes, the
  worse-ranked file's view is given up, the better-ranked file takes it, and the greedy refills
  what is left. So when the plan is done, no file ranked below X holds a view finer than X's
  in room that would have held a view of X as fine (the room went down the ranking only where
  it could not buy that view of a better-ranked file);
- files no profile scored (score 0) get views only afterwards, in the room every scored
  file left, so a file the query gave no score never takes room a scored file could use;
  nothing tells them apart, so the smallest go first (most files whole for the room),
  each at its finest view that fits.

All arithmetic is exact (fractions of integers), so every platform plans the same.
The plan only orders the nodes: the planned views of scored files in rank order, then
their coarser views as fallbacks, then the same for score-0 files (in planning order,
smallest first); every view finer
than a file's plan comes after all of them. The selector still checks every
bound exactly, so a plan that was optimistic (other material took room) degrades to
coarser views, never to cut text.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

VIEW_WEIGHTS = {"full": 100, "outline": 80, "signatures": 40, "names": 30}
"""Percent of a file's value each view is worth (measured on the relevance benchmark: see docs/ranking.md)."""
OTHER_VIEW = 40
"""The worth of a coarser view this table does not name (a third-party profile's)."""


@dataclass(frozen=True, slots=True)
class ViewPlan:
    """The planned view of each file (``None``: none fits), files in rank order."""

    chosen: list[int | None]
    short: dict[int, tuple[int, int]] = field(default_factory=dict)
    """File index -> (characters its finest view needed, room it had: what was left plus its
    own planned view), for each file planned below its finest view."""
    leftover: dict[int, int] = field(default_factory=dict)
    """Unscored file index -> the room every scored file left when it was planned a view."""
    unscored: list[int] = field(default_factory=list)
    """The score-0 files in the order they were planned: smallest full view first."""
    spent: dict[int, tuple[int, int]] = field(default_factory=dict)
    """File index -> (characters the planned views of better-ranked files take, those of
    worse-ranked files), for each file in ``short``: whether the room went to files the
    ranking put first, or to cheaper views further down."""


def view_weight(name: str, level: int) -> int:
    """Percent of a file's value the view ``name`` (at ``level``, 0 = full) is worth."""
    return VIEW_WEIGHTS["full"] if level == 0 else VIEW_WEIGHTS.get(name, OTHER_VIEW)


def plan_views(
    sizes: Sequence[Sequence[int]],
    scores: Sequence[int],
    room: int,
    names: Sequence[Sequence[str]] | None = None,
) -> ViewPlan:
    """Plan one view per file (``names``: each view's name, for its worth; by default
    ``full`` then the Python profile's ``signatures``, ``names``)."""
    chosen: list[int | None] = [None] * len(sizes)
    plan = ViewPlan(chosen)
    default = ("full", "signatures", "names")
    worth = []
    for index, views in enumerate(sizes):
        named = names[index] if names else default
        worth.append([view_weight(named[level] if level < len(named) else "", level) for level in range(len(views))])
    left = _keep_rank_order(sizes, scores, worth, chosen, _spend_by_value(sizes, scores, worth, chosen, max(room, 0)))
    plan.unscored.extend(
        sorted((i for i, s in enumerate(scores) if s <= 0), key=lambda i: (sizes[i][0] if sizes[i] else 0, i))
    )
    for index in plan.unscored:
        views = sizes[index]
        level = next((level for level, size in enumerate(views) if size <= left), None)
        if level is not None:
            plan.leftover[index] = left
            chosen[index] = level
            left -= views[level]
    total = max(room, 0) - left
    taken = [0 if level is None else sizes[i][level] for i, level in enumerate(chosen)]
    before = 0
    for index, views in enumerate(sizes):
        level = chosen[index]
        if views and level != 0:
            plan.short[index] = (views[0], left + taken[index])
            plan.spent[index] = (before, total - before - taken[index])
        before += taken[index]
    return plan


def _spend_by_value(
    sizes: Sequence[Sequence[int]], scores: Sequence[int], worth: list[list[int]], chosen: list[int | None], left: int
) -> int:
    """The greedy by value per character over scored files; returns the room left."""

    def best_move(index: int) -> tuple[Fraction, int] | None:
        current = chosen[index]
        held = 0 if current is None else sizes[index][current]
        had = 0 if current is None else worth[index][current]
        found: tuple[Fraction, int] | None = None
        for level in range(len(sizes[index]) if current is None else current):
            gain, cost = worth[index][level] - had, sizes[index][level] - held
            if gain <= 0 or cost > left:
                continue
            ratio = Fraction(scores[index] * gain, (index + 1) ** 2 * max(cost, 1))
            if found is None or ratio > found[0]:
                found = (ratio, level)
        return found

    heap: list[tuple[Fraction, int, int]] = []
    for index, score in enumerate(scores):
        move = best_move(index) if score > 0 else None
        if move is not None:
            heap.append((-move[0], index, move[1]))
    heapq.heapify(heap)
    while heap:
        negative, index, level = heapq.heappop(heap)
        move = best_move(index)  # the room shrank or the file moved since: take it only if still its best
        if move is None:
            continue
        if move != (-negative, level):
            heapq.heappush(heap, (-move[0], index, move[1]))
            continue
        current = chosen[index]
        left -= sizes[index][level] - (0 if current is None else sizes[index][current])
        chosen[index] = level
        follow = best_move(index)
        if follow is not None:
            heapq.heappush(heap, (-follow[0], index, follow[1]))
    return left


def _keep_rank_order(
    sizes: Sequence[Sequence[int]], scores: Sequence[int], worth: list[list[int]], chosen: list[int | None], left: int
) -> int:
    """Exchange views until no worse-ranked file holds one that would have paid for as fine a
    view of a better-ranked file; returns the room left. Each exchange makes a file finer and
    only files ranked below it coarser (the greedy's refill only adds), so the loop ends."""
    while (exchange := outranked(sizes, scores, worth, chosen, left)) is not None:
        better, finer, worse = exchange
        current, given_up = chosen[better], chosen[worse]
        assert given_up is not None  # outranked only names a worse-ranked file holding a view
        held = 0 if current is None else sizes[better][current]
        left += sizes[worse][given_up] - (sizes[better][finer] - held)
        chosen[worse], chosen[better] = None, finer
        left = _spend_by_value(sizes, scores, worth, chosen, left)
    return left


def outranked(
    sizes: Sequence[Sequence[int]],
    scores: Sequence[int],
    worth: list[list[int]],
    chosen: Sequence[int | None],
    left: int,
) -> tuple[int, int, int] | None:
    """The first scored file (best-ranked) that could hold a view as fine as a worse-ranked
    scored file's in what is left plus that file's view: (its index, the level it would take,
    the worse-ranked file, the worst-ranked such); ``None`` when there is none. Linear in the
    files times the distinct worths: per worth, the largest view of that worth further down."""
    scored = [i for i, s in enumerate(scores) if s > 0]
    held = {i: (worth[i][c], sizes[i][c]) for i in scored if (c := chosen[i]) is not None}
    largest: dict[int, int] = {}  # worth -> the largest planned view of that worth below the file
    below: dict[int, dict[int, int]] = {}
    for i in reversed(scored):
        below[i] = dict(largest)
        if i in held:
            largest[held[i][0]] = max(largest.get(held[i][0], 0), held[i][1])
    for x in scored:
        has, size = held.get(x, (0, 0))
        costs = {w: _cheapest(sizes[x], worth[x], w) for w in below[x] if w > has}
        fits = {w: level for w, level in costs.items() if level is not None}
        if not any(sizes[x][level] - size <= left + below[x][w] for w, level in fits.items()):
            continue
        for y in reversed(scored):  # the worst-ranked file whose view makes room enough
            if y > x and y in held and held[y][0] in fits:
                level = fits[held[y][0]]
                if sizes[x][level] - size <= left + held[y][1]:
                    return x, level, y
    return None


def _cheapest(views: Sequence[int], worths: Sequence[int], at_least: int) -> int | None:
    """The level of the smallest view worth at least ``at_least`` (``None``: none is)."""
    levels = [level for level, w in enumerate(worths) if w >= at_least]
    return min(levels, key=lambda level: (views[level], level)) if levels else None


def view_relevance(
    chosen: Sequence[int | None],
    counts: Sequence[int],
    scores: Sequence[int],
    unscored: Sequence[int] | None = None,
) -> list[list[int]]:
    """Relevance of each file's views (same shape as ``counts``), higher first: the planned
    views of scored files (rank order), then their coarser views as fallbacks (per file
    finest first), then the same for score-0 files (in ``unscored`` order, the plan's; by
    default rank order); every view finer than a plan last."""
    rest = list(unscored) if unscored is not None else [i for i, s in enumerate(scores) if s <= 0]
    groups = ([i for i, s in enumerate(scores) if s > 0], rest)
    sequence: list[tuple[int, int]] = []
    for group in groups:
        sequence.extend((i, chosen[i] or 0) for i in group)
        sequence.extend((i, level) for i in group for level in range((chosen[i] or 0) + 1, counts[i]))
    sequence.extend((i, level) for group in groups for i in group for level in range(chosen[i] or 0))
    values = [[0] * count for count in counts]
    for position, (index, level) in enumerate(sequence):
        values[index][level] = len(sequence) - position
    return values
