"""The one history engine: which suffix of a wire-form history one model request keeps,
decided by the graph selector that ``lychd assemble`` uses.

Every adapter (Pydantic AI, LangChain/LangGraph, the OpenAI Agents SDK) and the
orchestrator bound history the same way: the newest group (the in-progress exchange)
is required and kept whole or refused before the model is called; older complete groups
become optional history nodes, each depending on the next newer one, built by the same
history policy as assembly (``assembly.nodes.history_nodes_of``); ``graph.select``
admits the newest suffix that fits the turn window and the characters left. No
framework import.

The policy is a parameter (``HistoryPolicy``), so another way of turning groups into
candidate nodes (for example a chunked trim) slots in without touching any adapter.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from lychd_core.assembly.governors import BoundedMessages
from lychd_core.assembly.nodes import HistoryNodeCache, Tokens, continuation_node, history_node_id, history_nodes_of
from lychd_core.errors import ContextBudgetExceededError
from lychd_core.graph import ContextGraph, ContextNode, SelectionBounds, SelectionPlan, TokenBudget, select
from lychd_core.graph.budget import MAX_INT
from lychd_core.history import Message, MessageGroup, iter_groups_newest_first
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import ContextClass, Provenance

HistoryPolicy = Callable[
    [Iterator[MessageGroup], int, int, int, Tokens], tuple[list[ContextNode], list[MessageGroup], int]
]
"""``(settled groups newest first, settled message count, turn window, character budget,
chars per token or a token counter) -> (candidate nodes, their groups, messages older than every candidate)``.
``history_nodes_of`` is the default (and assembly's)."""

OUTBOUND_ROLE = "writer"


def outbound_profile(role: str = OUTBOUND_ROLE) -> RoleProfile:
    """The profile an adapter selects with when the caller gives none: history, the
    continuation and everything else visible (an adapter's messages are the run's own)."""
    return RoleProfile(
        role=role,
        visible_classes=frozenset(ContextClass),
        visible_provenances=frozenset(Provenance),
        capability_view=(),
    )


_DEFAULT_PROFILE = outbound_profile()


@dataclass(frozen=True, slots=True)
class HistorySelection:
    """One bounding: ``bounded`` (the kept suffix, as before) and the selector's plan."""

    bounded: BoundedMessages
    plan: SelectionPlan | None
    unscanned_messages: int
    """Settled messages older than every candidate node (never read past the first refused group)."""
    current_start: int = 0
    """Where the newest group (the in-progress exchange) starts: recall goes right before it."""

    def omitted_by_reason(self) -> dict[str, int]:
        """Omitted candidate nodes counted by the selector's reason (older messages that never
        became candidates are ``unscanned_messages``)."""
        counts: Counter[str] = Counter()
        if self.plan is not None:
            explanations = self.plan.explanations
            for node_id in self.plan.omitted:
                counts[str(explanations[node_id].reason)] += 1
        return dict(counts)


def select_history(
    wire: Sequence[Message],
    *,
    turn_window: int,
    char_budget: int,
    chars_per_token: int,
    text_of: Callable[[int], str] | None = None,
    profile: RoleProfile | None = None,
    policy: HistoryPolicy = history_nodes_of,
    cache: HistoryNodeCache | None = None,
    checked: bool = False,
) -> HistorySelection:
    """Keep the newest group whole plus the newest settled groups the selector admits.

    Raises ``ContextBudgetExceededError`` when the current exchange alone does not fit
    ``char_budget`` (before any model call). ``text_of(index)`` is the compact JSON of
    ``wire[index]`` when already known (a ``LazyWire``'s memo); ``checked``: every message
    of ``wire`` was validated as it was converted.
    """
    groups = iter_groups_newest_first(wire, text_of, checked)
    current = next(groups, None)
    if current is None:
        return HistorySelection(BoundedMessages(0, 0, 0, 0, 0), None, 0, 0)
    if current.chars > char_budget:
        raise ContextBudgetExceededError(
            f"the current exchange needs {current.chars} characters but only {char_budget} are available",
            required=current.chars,
            available=char_budget,
            parts={"continuation": current.chars},
        )
    room = char_budget - current.chars
    # Never read a group the turn window cannot keep: bounding reads what it may send.
    settled = islice(groups, max(turn_window, 0))
    if policy is history_nodes_of:
        nodes, candidates, older = history_nodes_of(settled, current.start, turn_window, room, chars_per_token, cache)
    else:
        nodes, candidates, older = policy(settled, current.start, turn_window, room, chars_per_token)
    if not nodes:
        return HistorySelection(
            BoundedMessages(current.start, 0, current.start, current.chars, current.chars), None, older
        )
    nodes.append(continuation_node("".join(current.texts), chars_per_token))
    # The character bound (and the turn window) are the only bounds here: no token budget, so an
    # omission is never blamed on one (the per-request token bound is the provider's usage check).
    budget = TokenBudget(window=MAX_INT, reserved_output=0, protocol_overhead=0)
    bounds = SelectionBounds(max_chars=char_budget, max_history_groups=max(turn_window, 0))
    plan = select(ContextGraph(nodes), profile or _DEFAULT_PROFILE, budget, bounds)
    start, kept, used = current.start, 0, current.chars
    for group in candidates:  # newest first: the selected ones are a contiguous newest run
        if not plan.is_selected(history_node_id(group)):
            break
        start, kept, used = group.start, kept + 1, used + group.chars
    return HistorySelection(BoundedMessages(start, kept, start, used, current.chars), plan, older, current.start)
