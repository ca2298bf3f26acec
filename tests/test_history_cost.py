"""[history] trim = "cost": how far to trim, chosen from declared cache prices, explained."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.assembly import ContextOrchestrator
from lychd_core.assembly.trim import GroupSpan, TrimReason, selected_history_trim, trim_start
from lychd_core.config import default_config, parse_config
from lychd_core.config.tokens import HistoryConfig
from lychd_core.errors import BudgetError, ConfigError, LychdError
from lychd_core.tokens.cost import CachePrices, choose_restart
from tests.support.conversations import conversation, turn
from tests.test_history_trim import outbound_session

ANTHROPIC = CachePrices(write=1250, read=100, lifetime=12)
NO_DISCOUNT = CachePrices(write=1000, read=1000, lifetime=12)


def priced_by_loop(
    size: int, groups: int, growth: int, room: int, max_groups: int | None, prices: CachePrices
) -> tuple[int, int]:
    """The model ``cost`` sums in closed form, request by request (the oracle)."""
    price, value, held, count = prices.write * size, size, size, groups
    for _ in range(prices.lifetime - 1):
        if held + growth > room or (max_groups is not None and count + 1 > max_groups):
            held, count, written = size, groups, size
        else:
            held, count, written = held + growth, count + 1, growth
        price += prices.write * written + prices.read * (held - written)
        value += held
    return price, value


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 5_000), max_size=30),
    slack=st.integers(0, 20_000),
    max_groups=st.one_of(st.none(), st.integers(0, 40)),
    write=st.integers(0, 3_000),
    read=st.integers(0, 3_000),
    lifetime=st.integers(2, 60),
)
def test_the_choice_is_the_best_restart_of_the_priced_model(
    sizes: list[int], slack: int, max_groups: int | None, write: int, read: int, lifetime: int
) -> None:
    prices = CachePrices(write, read, lifetime)
    room = sum(sizes) + slack
    choice = choose_restart(sizes, room=room, max_groups=max_groups, prices=prices)
    growth = max(1, -(-sum(sizes) // len(sizes))) if sizes else 1
    scores = []
    for dropped in range(len(sizes) + 1):
        price, value = priced_by_loop(sum(sizes[dropped:]), len(sizes) - dropped, growth, room, max_groups, prices)
        scores.append(value * 1000 - price)
        if dropped == choice.dropped:
            assert (choice.price, choice.value) == (price, value)
    assert choice.dropped == scores.index(max(scores))  # the best, ties keeping more context
    assert choice.kept == sum(sizes[choice.dropped :]) <= room


def test_without_a_cache_discount_cost_keeps_what_newest_keeps() -> None:
    choice = choose_restart([1_000] * 20, room=20_000, max_groups=20, prices=NO_DISCOUNT)
    assert choice.dropped == 0 and choice.price == choice.newest_price


def test_with_cheap_reads_cost_drops_part_of_the_history() -> None:
    choice = choose_restart([1_000] * 20, room=20_000, max_groups=20, prices=ANTHROPIC)
    assert 0 < choice.dropped < 20
    assert choice.price < choice.newest_price / 3  # far cheaper than rewriting everything each request
    assert choice.value > choice.newest_value * 3 / 4  # at most of newest's context


def test_a_dearer_write_trims_at_least_as_far_here() -> None:
    sizes = [800 + 37 * i % 400 for i in range(20)]
    base = choose_restart(sizes, room=sum(sizes), max_groups=20, prices=ANTHROPIC).dropped
    dearer = choose_restart(sizes, room=sum(sizes), max_groups=20, prices=CachePrices(2_000, 100, 12)).dropped
    assert dearer >= base


@pytest.mark.parametrize(
    "bad",
    [{"write": -1}, {"read": 100_001}, {"lifetime": 1}, {"lifetime": 10_001}, {"write": 1.25}, {"read": True}],
)
def test_bad_prices_are_refused_naming_the_price(bad: dict[str, object]) -> None:
    with pytest.raises(BudgetError, match=str(next(iter(bad)))) as raised:
        CachePrices(**bad)  # type: ignore[arg-type]
    assert isinstance(raised.value, LychdError)


SPANS = [GroupSpan(start, 100, 30) for start in range(0, 100, 10)]  # ten groups of 100 chars, ends at 100


def test_cost_appends_while_the_previous_start_fits_and_starts_newest() -> None:
    assert trim_start(SPANS, end=100, newest_start=20, previous=50, mode="cost").reason is TrimReason.APPENDED
    first = trim_start(SPANS, end=100, newest_start=20, previous=None, mode="cost")
    assert (first.start, first.reason, first.detail) == (20, TrimReason.NEWEST, None)


def test_cost_trims_explained_in_tokens_when_every_group_is_counted() -> None:
    decision = trim_start(SPANS, end=100, newest_start=0, previous=-1, mode="cost", room_tokens=300, prices=ANTHROPIC)
    assert decision.reason is TrimReason.TRIMMED and decision.start in {span.start for span in SPANS}
    assert decision.detail is not None and "tokens" in decision.detail and "newest" in decision.detail
    assert decision.to_json()["detail"] == decision.detail
    assert "[history] trim = cost" in decision.explain() and decision.detail in decision.explain()
    uncounted = [GroupSpan(span.start, span.chars) for span in SPANS]
    in_chars = trim_start(uncounted, end=100, newest_start=0, previous=-1, mode="cost", room_chars=1_000)
    assert in_chars.detail is not None and "characters" in in_chars.detail


@settings(max_examples=150, deadline=None)
@given(
    chars=st.lists(st.integers(1, 3_000), min_size=1, max_size=25),
    selected=st.integers(0, 25),
    previous=st.one_of(st.none(), st.integers(-5, 30)),
    write=st.integers(0, 3_000),
    read=st.integers(0, 3_000),
    lifetime=st.integers(2, 40),
)
def test_cost_keeps_a_newest_suffix_of_complete_groups_within_the_room(
    chars: list[int], selected: int, previous: int | None, write: int, read: int, lifetime: int
) -> None:
    """The assembly's trim: only groups newest kept, a group start (or none), never more than newest."""
    starts = list(range(0, len(chars)))
    newest_first = [(s, c, -(-c // 4), i < selected) for i, (s, c) in enumerate(zip(starts[::-1], chars, strict=True))]
    decision = selected_history_trim(
        newest_first,
        end=len(chars),
        previous=previous,
        mode="cost",
        low_water=60,
        turn_window=selected,
        prices=CachePrices(write, read, lifetime),
    )
    kept_by_newest = sum(c for _, c, _, chosen in newest_first if chosen)
    kept = sum(c for s, c, _, chosen in newest_first if chosen and s >= decision.start)
    assert decision.newest_start <= decision.start <= len(chars)
    assert decision.start == len(chars) or decision.start in starts
    assert kept <= kept_by_newest


@settings(max_examples=15, deadline=None)
@given(
    write=st.integers(0, 3_000),
    read=st.integers(0, 3_000),
    lifetime=st.integers(2, 40),
    turns=st.integers(5, 60),
)
def test_a_cost_session_sends_no_orphan_and_never_passes_the_cap(
    write: int, read: int, lifetime: int, turns: int
) -> None:
    """Request after request: complete groups only (every tool return with its call), within the cap
    (``outbound_session`` checks both), the start never moving back nor keeping more than newest."""

    history = conversation(turns, tools=2, pad=40)
    config = HistoryConfig(trim="cost", cache_write=write, cache_read=read, cache_lifetime=lifetime)
    starts = outbound_session(history, config, turns)
    newest = outbound_session(history, HistoryConfig(), turns)
    assert starts == sorted(starts)
    assert all(c >= n for c, n in zip(starts, newest, strict=True))


def test_cost_without_a_discount_is_newest_and_with_one_moves_rarely() -> None:

    history = conversation(80, pad=40)
    newest = outbound_session(history, HistoryConfig(), 80)
    flat = HistoryConfig(trim="cost", cache_write=1000, cache_read=1000)
    assert outbound_session(history, flat, 80) == newest
    cheap = outbound_session(history, HistoryConfig(trim="cost"), 80)
    assert len(set(newest)) > 3 * len(set(cheap))


def test_the_orchestrator_explains_a_cost_trim_in_tokens() -> None:
    data = default_config().model_dump(mode="python")
    data["governors"] = {"turn_window": 1_000, "char_cap": 5_000}
    data["history"] = {"trim": "cost", "cache_write": 1250, "cache_read": 100, "cache_lifetime": 12}
    orchestrator = ContextOrchestrator(parse_config(data, "test"))
    previous: int | None = None
    history: list[dict[str, Any]] = []
    details = []
    for index in range(40):
        assembled = orchestrator.assemble(
            run_id=f"r{index}", session_id="s", query="next?", history=history, history_trim=previous
        )
        assert assembled.used_chars <= assembled.bounds.char_cap
        assert history[assembled.history_start :] == assembled.history
        previous = assembled.history_start
        trim = assembled.trim
        if trim is not None and trim.reason is TrimReason.TRIMMED and trim.start > trim.newest_start:
            details.append(trim.detail)
            reasons = [item.reason for item in assembled.not_nodes if item.reason.startswith("[history] trim = cost")]
            assert reasons and trim.detail is not None and trim.detail in reasons[0]
        history += turn(index, pad=60)
    assert details and all(d is not None and "tokens" in d for d in details)


@pytest.mark.parametrize("bad", [{"cache_lifetime": 1}, {"cache_write": -1}, {"cache_read": 0.1}, {"trim": "cheapest"}])
def test_bad_cost_settings_are_refused_naming_the_field(bad: dict[str, object]) -> None:
    data = default_config().model_dump(mode="python")
    data["history"] = {"trim": "cost", **bad}
    with pytest.raises(ConfigError, match=next(iter(bad))):
        parse_config(data, "test")
