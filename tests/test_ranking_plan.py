"""Planning views against the room: within the room, finest first for the best-ranked, a map first."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.ranking.plan import plan_views, view_relevance

# A file's views, finest first, each strictly smaller than the one before.
views = st.lists(st.integers(1, 5_000), min_size=1, max_size=3, unique=True).map(lambda v: sorted(v, reverse=True))
files = st.lists(views, min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(files, st.integers(0, 40_000), st.integers(0, 100))
def test_the_plan_stays_within_the_room(sizes: list[list[int]], room: int, share: int) -> None:
    chosen = plan_views(sizes, room, share)
    assert len(chosen) == len(sizes)
    assert sum(s[c] for s, c in zip(sizes, chosen, strict=True) if c is not None) <= room
    assert all(c is None or 0 <= c < len(s) for s, c in zip(sizes, chosen, strict=True))


@settings(max_examples=200, deadline=None)
@given(files, st.integers(0, 100))
def test_when_everything_fits_every_file_gets_its_finest_view(sizes: list[list[int]], share: int) -> None:
    room = sum(s[0] for s in sizes)
    assert plan_views(sizes, room, share) == [0] * len(sizes)


@settings(max_examples=200, deadline=None)
@given(files, st.integers(0, 40_000))
def test_the_best_ranked_file_gets_the_finest_view_that_fits_beside_the_map(sizes: list[list[int]], room: int) -> None:
    chosen = plan_views(sizes, room, 0)  # no map: pure detail in rank order
    first = sizes[0]
    fits = [level for level, size in enumerate(first) if size <= room]
    assert chosen[0] == (fits[0] if fits else None)


@settings(max_examples=200, deadline=None)
@given(files, st.integers(0, 40_000), st.integers(0, 100))
def test_planned_views_come_before_every_fallback_in_rank_order(sizes: list[list[int]], room: int, share: int) -> None:
    chosen = plan_views(sizes, room, share)
    values = view_relevance(chosen, [len(s) for s in sizes])
    planned = [values[i][c] for i, c in enumerate(chosen) if c is not None]
    fallbacks = [v for i, vs in enumerate(values) for level, v in enumerate(vs) if level != chosen[i]]
    assert planned == sorted(planned, reverse=True) and len(set(planned)) == len(planned)
    assert not fallbacks or not planned or min(planned) > max(fallbacks)
    for i, vs in enumerate(values):  # a file's fallbacks: finest first
        rest = [v for level, v in enumerate(vs) if level != chosen[i]]
        assert rest == sorted(rest, reverse=True)


def test_the_short_note_says_what_the_finest_view_needed() -> None:
    short: dict[int, tuple[int, int]] = {}
    chosen = plan_views([[6_354, 900, 120]], 1_000, 40, short)
    assert chosen == [1] and short == {0: (6_354, 1_000)}
