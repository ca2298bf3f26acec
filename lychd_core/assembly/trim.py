"""History trim policies: which complete groups the retained history starts at.

``newest`` is the reference: the newest complete groups that fit. ``chunked`` keeps a
provider's prefix cache warm: while the groups from the previous start still fit it only
appends, and when they no longer fit it drops the oldest complete groups down to
``low_water`` percent of the room, once, then appends again. Groups are never split,
reordered or padded; the decision is a pure function of the groups, the room and the
previous start, which the caller holds (``TrimState``, or ``history_start`` of the last
``AssembledContext``) — no hidden state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from lychd_core.graph.budget import checked_int

TrimMode = Literal["newest", "chunked"]


class TrimReason(StrEnum):
    NEWEST = "newest"
    """``newest``, or ``chunked`` with no previous start: the newest groups that fit."""
    APPENDED = "appended"
    """``chunked``: the groups from the previous start still fit; only new groups were added."""
    TRIMMED = "trimmed"
    """``chunked``: the previous start no longer fits (or is not a group start): dropped to low water."""


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

    def to_json(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "start": self.start,
            "newest_start": self.newest_start,
            "previous_start": self.previous_start,
            "reason": self.reason.value,
        }


@dataclass
class TrimState:
    """The previous start of one conversation's retained history: the explicit input of
    ``chunked``. One per conversation; ``start`` may be saved and restored by the caller."""

    start: int | None = None


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
) -> TrimDecision:
    """The start of the retained settled history ``[start, end)``.

    ``groups``: the candidate settled groups, oldest first, ending at ``end`` (the first
    message not settled history); ``newest_start``: where ``newest`` starts (every group
    from it fits). ``room_*`` and ``max_groups`` are what the history may use; unknown
    ones default to what ``newest`` kept, which fills the room.
    """
    checked_int("low_water", low_water, minimum=1)
    if mode == "newest" or previous is None:  # newest never depends on a previous start
        return TrimDecision(mode, newest_start, newest_start, TrimReason.NEWEST)
    starts = {group.start for group in groups} | {end}
    if newest_start <= previous <= end and previous in starts:
        return TrimDecision(mode, previous, newest_start, TrimReason.APPENDED, previous)
    kept = [group for group in groups if group.start >= newest_start]
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


def selected_history_trim(
    groups: Sequence[tuple[int, int, int, bool]],
    *,
    end: int,
    previous: int | None,
    mode: TrimMode,
    low_water: int,
    turn_window: int,
) -> TrimDecision:
    """The trim of an assembly: ``groups`` are its candidate history groups, newest first, as
    ``(start, chars, tokens, selected)``; ``newest`` is what the selector kept (a newest
    suffix, by dependency closure). The room is what ``newest`` filled."""
    kept = [GroupSpan(start, chars, tokens) for start, chars, tokens, selected in reversed(groups) if selected]
    newest_start = kept[0].start if kept else end
    return trim_start(
        kept,
        end=end,
        newest_start=newest_start,
        previous=previous,
        mode=mode,
        low_water=low_water,
        max_groups=max(turn_window, 0),
    )
