"""Planning views by value: the best-ranked files first at their finest view that fits, score-0 files last."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.ranking.plan import plan_views, view_relevance, view_weight

# A file's views, finest first, each strictly smaller than the one before.
views = st.lists(st.integers(1, 5_000), min_size=1, max_size=3, unique=True).map(lambda v: sorted(v, reverse=True))
files = st.lists(st.tuples(views, st.integers(0, 10_000)), min_size=1, max_size=12).map(
    lambda found: sorted(found, key=lambda f: -f[1])  # rank order: scores descending
)


def split(found: list[tuple[list[int], int]]) -> tuple[list[list[int]], list[int]]:
    return [f[0] for f in found], [f[1] for f in found]


@settings(max_examples=150, deadline=None)
@given(files, st.integers(0, 40_000))
def test_the_plan_stays_within_the_room(found: list[tuple[list[int], int]], room: int) -> None:
    sizes, scores = split(found)
    chosen = plan_views(sizes, scores, room).chosen
    assert len(chosen) == len(sizes)
    assert sum(s[c] for s, c in zip(sizes, chosen, strict=True) if c is not None) <= room
    assert all(c is None or 0 <= c < len(s) for s, c in zip(sizes, chosen, strict=True))


@settings(max_examples=150, deadline=None)
@given(files)
def test_when_everything_fits_every_file_gets_its_finest_view(found: list[tuple[list[int], int]]) -> None:
    sizes, scores = split(found)
    assert plan_views(sizes, scores, sum(s[0] for s in sizes)).chosen == [0] * len(sizes)


@settings(max_examples=150, deadline=None)
@given(files, st.integers(0, 40_000))
def test_no_scored_file_could_still_move_to_a_finer_view(found: list[tuple[list[int], int]], room: int) -> None:
    """The greedy stops only when no finer view of a scored file fits what is left."""
    sizes, scores = split(found)
    plan = plan_views(sizes, scores, room)
    used = sum(s[c] for s, c, p in zip(sizes, plan.chosen, scores, strict=True) if p and c is not None)
    for views_of, score, level in zip(sizes, scores, plan.chosen, strict=True):
        held = 0 if level is None else views_of[level]
        finer = views_of[: len(views_of) if level is None else level]
        assert not score or all(size - held > room - used for size in finer)


@settings(max_examples=150, deadline=None)
@given(files, st.integers(0, 40_000))
def test_the_plan_is_deterministic_and_independent_of_equal_alternatives(
    found: list[tuple[list[int], int]], room: int
) -> None:
    sizes, scores = split(found)
    assert plan_views(sizes, scores, room) == plan_views([list(s) for s in sizes], list(scores), room)


@settings(max_examples=150, deadline=None)
@given(files, st.integers(0, 40_000))
def test_a_score_0_file_never_takes_room_a_scored_file_could_use(found: list[tuple[list[int], int]], room: int) -> None:
    sizes, scores = split(found)
    plan = plan_views(sizes, scores, room)
    used_by_scored = sum(s[c] for s, c, p in zip(sizes, plan.chosen, scores, strict=True) if p and c is not None)
    left = room - used_by_scored
    for views_of, score, level in zip(sizes, scores, plan.chosen, strict=True):
        if score and level != 0:  # a finer view of a scored file could not fit even in all that was left
            assert all(size > left for size in views_of[: level if level is not None else len(views_of)])
    assert set(plan.leftover) == {
        i for i, (p, c) in enumerate(zip(scores, plan.chosen, strict=True)) if not p and c is not None
    }


def test_a_small_score_0_file_gets_its_full_outline_only_from_what_is_left() -> None:
    # rank-34-like scored file (signatures 2,000, full 8,000) and a tiny unscored __init__.py (300, full only)
    plan = plan_views([[8_000, 2_000, 400], [300]], [40, 0], 2_200)
    assert plan.chosen == [1, None], "the scored file's signatures first; the 200 left do not hold the score-0 file"
    plan = plan_views([[8_000, 2_000, 400], [300]], [40, 0], 2_400)
    assert plan.chosen == [1, 0] and plan.leftover == {1: 400}


def test_value_per_character_decides() -> None:
    # the docs/ranking.md example: the top file whole, the second only named, the third's signatures
    sizes = [[4_300, 1_900, 240], [5_200, 2_100, 310], [3_900, 1_200, 190], [150]]
    plan = plan_views(sizes, [9_120, 6_410, 2_050, 0], 6_000)
    assert plan.chosen == [0, 2, 1, 0] and plan.leftover == {3: 190}
    # value per character: the second file whole (300 characters) buys more than the top file's full
    # outline (5,000), so the top file takes its signatures in what is left...
    assert plan_views([[5_000, 600], [300]], [10_000, 10_000], 4_999).chosen == [1, 0]
    # ...unless the room the second file's view takes would hold the top file's full outline: ranking first
    assert plan_views([[5_000, 600], [300]], [10_000, 10_000], 5_000).chosen == [0, None]
    # ...and its full outline as soon as the room holds both
    assert plan_views([[5_000, 600], [300]], [10_000, 10_000], 5_300).chosen == [0, 0]


def test_a_views_worth_is_its_share_of_the_files_value() -> None:
    names = [["full"], ["full", "outline"]]
    # equal cost: rank 1 whole (100% of 5,000) beats rank 2's outline (80% of 5,000 / 2)
    assert plan_views([[1_000], [1_500, 1_000]], [5_000, 5_000], 1_000, names).chosen == [0, None]
    assert plan_views([[1_000], [1_500, 1_000]], [5_000, 5_000], 2_000, names).chosen == [0, 1]


@settings(max_examples=150, deadline=None)
@given(files, st.integers(0, 40_000))
def test_relevance_orders_plans_then_fallbacks_scored_files_first(
    found: list[tuple[list[int], int]], room: int
) -> None:
    sizes, scores = split(found)
    chosen = plan_views(sizes, scores, room).chosen
    values = view_relevance(chosen, [len(s) for s in sizes], scores)
    flat = [v for vs in values for v in vs]
    assert len(set(flat)) == len(flat) and min(flat) >= 1
    scored = [i for i, s in enumerate(scores) if s]
    unscored = [i for i, s in enumerate(scores) if not s]
    heads = [values[i][chosen[i] or 0] for i in scored + unscored]
    assert heads[: len(scored)] == sorted(heads[: len(scored)], reverse=True)
    coarser = {i: values[i][(chosen[i] or 0) + 1 :] for i in range(len(sizes))}
    if scored:
        lowest_scored_head = min(values[i][chosen[i] or 0] for i in scored)
        assert all(v < lowest_scored_head for i in range(len(sizes)) for v in coarser[i])  # plans first
        scored_fallbacks = [v for i in scored for v in coarser[i]]
        assert all(values[i][chosen[i] or 0] < min(scored_fallbacks, default=10**9) for i in unscored)
    for i, vs in enumerate(values):
        start = chosen[i] or 0
        assert vs[start:] == sorted(vs[start:], reverse=True)  # planned, then coarser, finest first
        assert all(v < min(heads) for v in vs[:start])  # finer than planned: after every plan


def test_the_short_note_says_what_the_finest_view_needed() -> None:
    plan = plan_views([[6_354, 900, 120]], [10_000], 1_000)
    assert plan.chosen == [1] and plan.short == {0: (6_354, 1_000)}


@settings(max_examples=150, deadline=None)
@given(files, st.integers(0, 40_000))
def test_the_short_note_accounts_for_the_whole_room(found: list[tuple[list[int], int]], room: int) -> None:
    """For a file planned below its full view, what remained plus what better- and worse-ranked
    files' planned views take is the whole room: the note names every character."""
    sizes, scores = split(found)
    plan = plan_views(sizes, scores, room)
    taken = [0 if c is None else s[c] for s, c in zip(sizes, plan.chosen, strict=True)]
    assert set(plan.spent) == set(plan.short) == {i for i, c in enumerate(plan.chosen) if c != 0}
    for index, (before, after) in plan.spent.items():
        assert before == sum(taken[:index]) and after == sum(taken[index + 1 :])
        assert plan.short[index][1] + before + after == room


def test_the_short_note_says_where_the_room_went() -> None:
    # The second file's full view (3,000) does not fit beside the first's: the better-ranked file
    # takes 3,000 and the two worse-ranked files 200, less than the 2,700 its full view lacked (it
    # had 300: 100 left and its own coarser view), so the room went to the file ranked first.
    plan = plan_views([[3_000, 300], [3_000, 200], [100], [100]], [9_000, 8_000, 7_000, 6_000], 3_500)
    assert plan.chosen == [0, 1, 0, 0]
    assert plan.short == {1: (3_000, 300)} and plan.spent == {1: (3_000, 200)}


def test_score_0_files_are_planned_smallest_first_in_what_is_left() -> None:
    # one scored file takes 1,000; three score-0 files (in rank order 2,000, 300, 700) share the 1,100 left
    plan = plan_views([[1_000], [2_000], [300], [700]], [5_000, 0, 0, 0], 2_100)
    assert plan.chosen == [0, None, 0, 0] and plan.unscored == [2, 3, 1]
    assert plan.leftover == {2: 1_100, 3: 800}
    values = view_relevance(plan.chosen, [1, 1, 1, 1], [5_000, 0, 0, 0], plan.unscored)
    assert values[0][0] > values[2][0] > values[3][0] > values[1][0]


def test_the_rank_discount_is_squared() -> None:
    # equal scores and sizes: rank 2's full view is worth a quarter of rank 1's per character, so
    # rank 1's names (30% of its value) then rank 2's names come before rank 2's full view
    plan = plan_views([[1_000, 100], [1_000, 100]], [8_000, 8_000], 1_100, [["full", "names"]] * 2)
    assert plan.chosen == [0, 1]
    # rank 2 whole is worth 8,000 / 4 per 1,000 characters = 2 per character; rank 1's names-to-full
    # upgrade 8,000 x 70% / 900 = 6.2: the upgrade first
    plan = plan_views([[1_000, 100], [1_000, 100]], [8_000, 8_000], 1_000, [["full", "names"]] * 2)
    assert plan.chosen == [0, None]


def test_a_worse_ranked_file_gives_up_a_finer_view_the_better_ranked_file_could_hold() -> None:
    # Ranked 10th and 11th, same score: the 10th's signatures (10 characters) are the cheapest buy, then
    # value per character prefers the 11th's full view (1,000, the 10th's would add 990). The 10th's full
    # view fits in the room the 11th's took, so the ranking's order wins: the 10th whole, the 11th nothing.
    sizes = [[100_000]] * 9 + [[1_000, 10], [1_000, 500]]
    assert plan_views(sizes, [100] * 11, 1_010).chosen == [None] * 9 + [0, None]


named_files = st.lists(
    st.tuples(views, st.integers(0, 10_000), st.sampled_from(["outline", "signatures", "names", "other"])),
    min_size=1,
    max_size=12,
).map(lambda found: sorted(found, key=lambda f: -f[1]))


@settings(max_examples=200, deadline=None)
@given(named_files, st.integers(0, 40_000))
def test_no_worse_ranked_file_holds_a_finer_view_in_room_a_better_ranked_file_could_use(
    found: list[tuple[list[int], int, str]], room: int
) -> None:
    """For scored files X ranked above Y: if Y's planned view is worth more than X's (X's worth 0 with
    none), X's smallest view worth at least as much, less what X's own view holds, does not fit in what
    the scored files left plus Y's view: the room went down the ranking only where it could not buy that
    view of a better-ranked file."""
    sizes, scores = [f[0] for f in found], [f[1] for f in found]
    names = [["full", f[2], "names"][: len(f[0])] for f in found]
    chosen = plan_views(sizes, scores, room, names).chosen
    worth = [[view_weight(n[level], level) for level in range(len(n))] for n in names]
    scored = [i for i, s in enumerate(scores) if s]
    left = room - sum(sizes[i][c] for i in scored if (c := chosen[i]) is not None)
    for x in scored:
        has = 0 if chosen[x] is None else worth[x][chosen[x]]
        held = 0 if chosen[x] is None else sizes[x][chosen[x]]
        for y in (y for y in scored if y > x and chosen[y] is not None):
            level = chosen[y]
            assert level is not None
            if worth[y][level] > has:
                as_fine = [size for size, w in zip(sizes[x], worth[x], strict=True) if w >= worth[y][level]]
                assert all(size - held > left + sizes[y][level] for size in as_fine), (x, y)
