"""The pure bounding path behind the Pydantic AI adapter: which suffix of a history
one model request may see. No Pydantic AI import.

Cost is the characters of compact JSON of each wire-form message, measured without
the request's recorded ``instructions`` field: Pydantic AI records the instructions
sent on every request in history but sends only the current ones, once, from the
request parameters. Those are counted in full, once, as ``instruction_chars``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar, overload

from lychd_core.assembly.governors import BoundedMessages, effective_char_cap
from lychd_core.assembly.nodes import HistoryNodeCache, history_nodes_of
from lychd_core.assembly.trim import GroupSpan, TrimDecision, TrimReason, cache_prices, trim_start
from lychd_core.config import Governors
from lychd_core.config.tokens import HistoryConfig
from lychd_core.errors import ContextBudgetExceededError
from lychd_core.history import Message, MessageGroup, compact_json, iter_groups_newest_first
from lychd_core.integrations.history_engine import HistoryPolicy, HistorySelection, select_history
from lychd_core.integrations.wire_memo import MemoEntry, WireMemo
from lychd_core.roles import RoleProfile

ItemT = TypeVar("ItemT")

# Fields of a wire message that are a record of what was sent, not part of what is sent again.
UNSENT_RECORD_FIELDS = frozenset({"instructions"})


def measured(message: Message) -> Message:
    """The message as it is counted: without its recorded instructions (a shallow copy)."""
    if not isinstance(message, dict) or not UNSENT_RECORD_FIELDS.intersection(message):
        return message
    return {key: value for key, value in message.items() if key not in UNSENT_RECORD_FIELDS}


class LazyWire(Sequence[Message], Generic[ItemT]):
    """A read-only wire-form view converted on first access, so bounding converts
    (and validates) what it reads, newest first, not the whole history.

    With ``convert_many``, a miss converts up to ``chunk`` uncached items ending at the
    one read in one call (reading goes newest first, so those are read next): one
    serializer call per chunk instead of per message, at most ``chunk - 1`` converted
    beyond what bounding reads. With ``memo``, items converted by an earlier request
    (the same live, unchanged objects) are not converted again, nor their JSON redone.
    With ``checked``, the converters validate, so grouping does not validate again."""

    def __init__(
        self,
        items: Sequence[ItemT],
        convert: Callable[[ItemT], Message],
        convert_many: Callable[[Sequence[ItemT]], list[Message]] | None = None,
        chunk: int = 4,
        memo: WireMemo[ItemT] | None = None,
        checked: bool = False,
    ) -> None:
        self.checked = checked
        """Whether ``convert`` and ``convert_many`` validate (``check_message``) what they return."""
        self._items = items
        self._convert = convert
        self._convert_many = convert_many
        self._chunk = chunk
        self._memo = memo
        self._cache: dict[int, Message] = {}
        self._texts: dict[int, str] = {}
        self._entries: dict[int, MemoEntry] = {}

    def __len__(self) -> int:
        return len(self._items)

    def _hit(self, index: int) -> Message | None:
        entry = None if self._memo is None else self._memo.get(self._items[index])
        if entry is None:
            return None
        self._cache[index] = entry.wire
        self._entries[index] = entry
        if entry.text is not None:
            self._texts[index] = entry.text
        return entry.wire

    def _store(self, index: int, wire: Message) -> None:
        self._cache[index] = wire
        entry = None if self._memo is None else self._memo.put(self._items[index], wire)
        if entry is not None:
            self._entries[index] = entry

    def _at(self, index: int) -> Message:
        cached = self._cache.get(index)
        if cached is not None:
            return cached
        hit = self._hit(index)
        if hit is not None:
            return hit
        if self._convert_many is None:
            self._store(index, measured(self._convert(self._items[index])))
            return self._cache[index]
        low = index
        while low > 0 and index - low + 1 < self._chunk and low - 1 not in self._cache and self._hit(low - 1) is None:
            low -= 1
        for offset, message in enumerate(self._convert_many(self._items[low : index + 1])):
            self._store(low + offset, measured(message))
        return self._cache[index]

    def text(self, index: int) -> str:
        """The compact JSON of ``self[index]`` (its cost), computed once per message object."""
        text = self._texts.get(index)
        if text is None:
            message = self._at(index)  # a memo hit brings its text along
            text = self._texts.get(index)
            if text is not None:
                return text
            text = self._texts[index] = compact_json(message)
            entry = self._entries.get(index)
            if entry is not None:
                entry.text = text
        return text

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> list[Message]: ...

    def __getitem__(self, index: int | slice) -> Message | list[Message]:
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(len(self._items)))]
        if index < 0:
            index += len(self._items)
        if not 0 <= index < len(self._items):
            raise IndexError(index)
        return self._at(index)

    def __iter__(self) -> Iterator[Message]:
        return (self._at(i) for i in range(len(self._items)))


def outbound_char_cap(governors: Governors, window: int | None) -> int:
    """The character cap of one request: min(char_cap, chars_per_token x window)."""
    return effective_char_cap(governors.char_cap, governors.chars_per_token, window)


def history_char_budget(
    governors: Governors, window: int | None, instruction_chars: int, rendering_chars: int = 0
) -> int:
    """Characters left for messages once the instructions (the floor text) and
    ``rendering_chars`` (what the framework adds when it renders the kept messages
    for the model) are reserved.

    Raises ``ContextBudgetExceededError`` when the instructions alone overflow the cap.
    """
    cap = outbound_char_cap(governors, window)
    if instruction_chars > cap:
        raise ContextBudgetExceededError(
            f"the instructions (floor text) need {instruction_chars} characters but the request cap is {cap}",
            required=instruction_chars,
            available=cap,
            parts={"instructions": instruction_chars},
        )
    return max(cap - instruction_chars - rendering_chars, 0)


def bound_outbound(
    wire: Sequence[Message],
    *,
    governors: Governors,
    window: int | None,
    instruction_chars: int,
    rendering_chars: int = 0,
) -> BoundedMessages:
    """Which suffix ``wire[start:]`` one request keeps (``select_outbound``'s bound).

    The newest group (the in-progress exchange) is kept whole or the request is
    refused with ``ContextBudgetExceededError``; older complete groups follow newest
    first while they fit the turn window and the characters left after the
    instructions. ``wire`` may be plain wire messages or a ``LazyWire``.
    """
    return select_outbound(
        wire, governors=governors, window=window, instruction_chars=instruction_chars, rendering_chars=rendering_chars
    ).bounded


def select_outbound(
    wire: Sequence[Message],
    *,
    governors: Governors,
    window: int | None,
    instruction_chars: int,
    rendering_chars: int = 0,
    profile: RoleProfile | None = None,
    policy: HistoryPolicy = history_nodes_of,
    cache: HistoryNodeCache | None = None,
) -> HistorySelection:
    """``bound_outbound`` with the selector's plan: the graph selector of ``lychd assemble``
    over the groups of ``wire``, within the characters left after the instructions."""
    budget = history_char_budget(governors, window, instruction_chars, rendering_chars)
    view = wire if isinstance(wire, LazyWire) else LazyWire(wire, _identity)
    return select_history(
        view,
        turn_window=governors.turn_window,
        char_budget=budget,
        chars_per_token=governors.chars_per_token,
        text_of=view.text,
        profile=profile,
        policy=policy,
        cache=cache,
        checked=view.checked,
    )


def _identity(message: Message) -> Message:
    return message


def trim_outbound(
    wire: Sequence[Message],
    bound: BoundedMessages,
    *,
    history: HistoryConfig,
    previous: int | None,
    governors: Governors,
    char_budget: int,
    text_of: Callable[[int], str] | None = None,
) -> tuple[BoundedMessages, TrimDecision]:
    """``bound`` (the newest groups that fit) under the ``[history] trim`` policy, given the
    previous request's start. The current exchange is never touched; only where the kept
    settled groups start may move later (``chunked``), never earlier than ``newest`` allows."""
    if history.trim == "newest" or previous is None:  # newest never depends on a previous start
        return bound, TrimDecision(history.trim, bound.start, bound.start, TrimReason.NEWEST)
    groups = iter_groups_newest_first(wire, text_of)
    current = next(groups, None)
    if current is None:
        return bound, TrimDecision(history.trim, bound.start, bound.start, TrimReason.NEWEST, previous)
    end = current.start
    spans = [GroupSpan(g.start, g.chars) for g in reversed(list(_settled_from(groups, bound.start)))]  # oldest first
    decision = trim_start(
        spans,
        end=end,
        newest_start=bound.start,
        previous=previous,
        mode=history.trim,
        low_water=history.low_water,
        room_chars=max(char_budget - current.chars, 0),
        prices=cache_prices(history),
        max_groups=max(governors.turn_window, 0),
    )
    if decision.start == bound.start:
        return bound, decision
    kept = [span for span in spans if span.start >= decision.start]
    chars = current.chars + sum(span.chars for span in kept)
    return BoundedMessages(decision.start, len(kept), decision.start, chars, current.chars), decision


def _settled_from(groups: Iterator[MessageGroup], start: int) -> Iterator[MessageGroup]:
    """The settled groups left in ``groups`` (newest first, the current exchange already read),
    down to the one starting at ``start``."""
    for group in groups:
        if group.start < start:
            return
        yield group
