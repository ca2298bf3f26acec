"""History trim policies: which complete groups the retained history starts at.

``newest`` is the reference: the newest complete groups that fit. ``chunked`` keeps a
provider's prefix cache warm: while the groups from the previous start still fit it only
appends, and when they no longer fit it drops the oldest complete groups down to
``low_water`` percent of the room, once, then appends again. ``cost`` appends like
``chunked`` and, when the groups no longer fit, drops as many of the oldest as the
declared cache prices say pays (``lychd_core.tokens.cost``), possibly none. Groups are never split,
reordered or padded; the decision is a pure function of the groups, the room and the
previous start, which the caller holds (``TrimState``, or ``history_start`` of the last
``AssembledContext``) — no hidden state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from lychd_core.config.tokens import HistoryConfig
from lychd_core.graph.budget import checked_int
from lychd_core.tokens.cost import CachePrices, choose_restart

TrimMode = Literal["newest", "chunked", "cost"]


class TrimReason(StrEnum):
    NEWEST = "newest"
    """``newest``, or ``chunked``/``cost`` with no previous start: the newest groups that fit."""
    APPENDED = "appended"
    """``chunked``/``cost``: the groups from the previous start still fit; only new groups were added."""
    TRIMMED = "trimmed"
    """``chunked``: the previous start no longer fits (or is not a group start): dropped to low water;
    ``cost``: dropped as far as the prices say pays (``detail`` gives the figures)."""


@dataclass(frozen=True, slots=True)
class GroupSpan:
    """One complete settled group, as the trim sees it: where it starts and what it costs."""

    start: int
    chars: int
    tokens: int = 0


@dataclass(frozen=True, slots=True)
class TrimDecision:
    """Where the retained settled history starts, what ``newest`` would have kept, and why."""

    mode: TrimMode
    start: int
    newest_start: int
    reason: TrimReason
    previous_start: int | None = None
    detail: str | None = None
    """``cost``: what the restart kept and what it and ``newest`` cost over the cache lifetime."""

    def to_json(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "start": self.start,
            "newest_start": self.newest_start,
            "previous_start": self.previous_start,
            "reason": self.reason.value,
            "detail": self.detail,
        }

    def explain(self) -> str:
        """Why settled groups older than ``start`` (and not older than ``newest_start``) were dropped."""
        why = f"[history] trim = {self.mode} ({self.reason.value}): older than the kept start {self.start}"
        return why if self.detail is None else f"{why}; {self.detail}"


@dataclass
class TrimState:
    """The previous start of one conversation's retained history: the explicit input of
    ``chunked``. One per conversation; ``start`` may be saved and restored by the caller."""

    start: int | None = None


def cache_prices(history: HistoryConfig) -> CachePrices:
    """``cost``'s prices as declared in ``[history]``."""
    return CachePrices(history.cache_write, history.cache_read, history.cache_lifetime)


def trim_start(
    groups: Sequence[GroupSpan],
    *,
    end: int,
    newest_start: int,
    previous: int | None,
    mode: TrimMode = "newest",
    low_water: int = 60,
    room_chars: int | None = None,
    room_tokens: int | None = None,
    max_groups: int | None = None,
    prices: CachePrices | None = None,
) -> TrimDecision:
    """The start of the retained settled history ``[start, end)``.

    ``groups``: the candidate settled groups, oldest first, ending at ``end`` (the first
    message not settled history); ``newest_start``: where ``newest`` starts (every group
    from it fits). ``room_*`` and ``max_groups`` are what the history may use; unknown
    ones default to what ``newest`` kept, which fills the room. ``prices``: ``cost``'s cache
    prices (default: ``CachePrices()``).
    """
    checked_int("low_water", low_water, minimum=1)
    if mode == "newest" or previous is None:  # newest never depends on a previous start
        return TrimDecision(mode, newest_start, newest_start, TrimReason.NEWEST)
    starts = {group.start for group in groups} | {end}
    if newest_start <= previous <= end and previous in starts:
        return TrimDecision(mode, previous, newest_start, TrimReason.APPENDED, previous)
    kept = [group for group in groups if group.start >= newest_start]
    if mode == "cost":
        return _cost_trim(
            kept, end, newest_start, previous, prices or CachePrices(), room_chars, room_tokens, max_groups
        )
    chars = (room_chars if room_chars is not None else sum(g.chars for g in kept)) * low_water // 100
    tokens = (room_tokens if room_tokens is not None else sum(g.tokens for g in kept)) * low_water // 100
    count = (max_groups if max_groups is not None else len(kept)) * low_water // 100
    start, used_chars, used_tokens, used = end, 0, 0, 0
    for group in reversed(kept):  # newest first, while the low water holds
        if used + 1 > count or used_chars + group.chars > chars or used_tokens + group.tokens > tokens:
            break
        used, used_chars, used_tokens, start = (
            used + 1,
            used_chars + group.chars,
            used_tokens + group.tokens,
            group.start,
        )
    return TrimDecision(mode, start, newest_start, TrimReason.TRIMMED, previous)


def _cost_trim(
    kept: Sequence[GroupSpan],
    end: int,
    newest_start: int,
    previous: int,
    prices: CachePrices,
    room_chars: int | None,
    room_tokens: int | None,
    max_groups: int | None,
) -> TrimDecision:
    """``cost``: priced in tokens when every group has a count, else in characters."""
    in_tokens = bool(kept) and all(group.tokens > 0 for group in kept)
    sizes = [group.tokens if in_tokens else group.chars for group in kept]
    room = room_tokens if in_tokens else room_chars
    choice = choose_restart(sizes, room=sum(sizes) if room is None else room, max_groups=max_groups, prices=prices)
    start = kept[choice.dropped].start if choice.dropped < len(kept) else end
    detail = choice.describe("tokens" if in_tokens else "characters", prices)
    return TrimDecision("cost", start, newest_start, TrimReason.TRIMMED, previous, detail)


def selected_history_trim(
    groups: Sequence[tuple[int, int, int, bool]],
    *,
    end: int,
    previous: int | None,
    mode: TrimMode,
    low_water: int,
    turn_window: int,
    prices: CachePrices | None = None,
) -> TrimDecision:
    """The trim of an assembly: ``groups`` are its candidate history groups, newest first, as
    ``(start, chars, tokens, selected)``; ``newest`` is what the selector kept (a newest
    suffix, by dependency closure). The room is what ``newest`` filled."""
    newest_start = min((start for start, _, _, selected in groups if selected), default=end)
    kept: list[GroupSpan] = []
    if mode != "newest" and previous is not None:  # only chunked and cost weigh the kept groups
        kept = [GroupSpan(start, chars, tokens) for start, chars, tokens, selected in reversed(groups) if selected]
    return trim_start(
        kept,
        end=end,
        newest_start=newest_start,
        previous=previous,
        mode=mode,
        low_water=low_water,
        max_groups=max(turn_window, 0),
        prices=prices,
    )
