"""The framework-neutral outbound core every adapter calls before each model request.

An adapter translates its framework's messages to the history wire form (lazily, newest
first) and hands them here; ``OutboundEngine.govern`` then, in one span:

1. resolves the outbound memory recall, if any (a typed refusal if a source changed),
   reserving its full size;
2. bounds history with the one history engine (``select_outbound``: complete groups,
   tool pairs never split, the governors, the graph selector);
3. gates egress for the configured target over the labels of everything sent;
4. records budget, counts, label class and the egress decision on the span.

It raises before the model is called: ``ContextBudgetExceededError``, ``EgressRefused``,
``RecallRefusedError``, ``HistoryError``. The framework's own history is never touched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from lychd_core.assembly.governors import BoundedMessages, request_input_limit, resolve_window
from lychd_core.assembly.nodes import HistoryNodeCache, history_nodes_of
from lychd_core.assembly.trim import TrimDecision, TrimState
from lychd_core.blocks import Block
from lychd_core.config import AssemblyConfig, Governors
from lychd_core.config.tokens import HistoryConfig
from lychd_core.errors import BudgetError
from lychd_core.history import Message
from lychd_core.integrations.egress import CallLabels, request_node_labels
from lychd_core.integrations.history_engine import HistoryPolicy, HistorySelection
from lychd_core.integrations.outbound import history_char_budget, outbound_char_cap, select_outbound, trim_outbound
from lychd_core.labels import PrivatizationLabel
from lychd_core.memory.recall import RecallProjection, RecallReceipt, RecallSource, resolve_recall
from lychd_core.privacy import EgressConfig, EgressDecision, decide_egress
from lychd_core.roles import RoleProfile
from lychd_core.telemetry import AssemblySpan, assembly_span, omission_attributes

DEFAULT_OUTPUT_RESERVE = AssemblyConfig().reserve_output
COUNTER = "characters"
"""What the bound counts: characters of compact JSON (tokens are estimated from them)."""


@dataclass(frozen=True, slots=True)
class Recall:
    """Outbound-only memory recall for an adapter: resolved again before every request into
    one transient data message the adapter adds to that request only (never to the
    framework's stored history). ``label`` is what the recalled evidence may be sent as
    (unlabelled: restricted, unknown lineage)."""

    receipt: RecallReceipt
    source: Callable[[], RecallSource]
    label: PrivatizationLabel | None = None
    on_recall: Callable[[RecallProjection], None] | None = None

    @property
    def reserve_chars(self) -> int:
        return self.receipt.max_chars


@dataclass(frozen=True, slots=True)
class OutboundOutcome:
    """What one request keeps: ``wire[selection.bounded.start:]``, plus what it was checked against."""

    selection: HistorySelection
    sent_chars: int
    instruction_chars: int
    char_cap: int
    recall: RecallProjection | None
    egress: EgressDecision
    trim: TrimDecision | None = None
    """Where the kept settled history starts under ``[history] trim``, and why."""

    @property
    def bounded(self) -> BoundedMessages:
        return self.selection.bounded


Measure = Callable[[BoundedMessages], int | None]
"""Characters of the kept messages as the framework renders them, or ``None`` when they
are sent as recorded (then the wire form is what is sent)."""


@dataclass(kw_only=True)
class OutboundEngine:
    """The shared outbound core: governors, window, egress target and labels of one adapter."""

    adapter: str
    governors: Governors = field(default_factory=Governors)
    window: int | None = None
    output_reserve: int = DEFAULT_OUTPUT_RESERVE
    target: str | None = None
    egress: EgressConfig = field(default_factory=EgressConfig)
    labels: CallLabels = field(default_factory=CallLabels)
    on_egress: Callable[[EgressDecision], None] | None = None
    recall: Recall | None = None
    profile: RoleProfile | None = None
    policy: HistoryPolicy = history_nodes_of
    history: HistoryConfig = field(default_factory=HistoryConfig)
    trim_state: TrimState = field(default_factory=TrimState)
    """The previous start of the kept history (``chunked`` continues from it): one per conversation."""
    _char_cap: int = field(init=False, repr=False, default=0)
    _input_limit: int | None = field(init=False, repr=False, default=None)
    _nodes: HistoryNodeCache = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.governors, Governors):
            raise BudgetError(f"governors must be a lychd_core.config.Governors, got {type(self.governors).__name__}")
        self.window = resolve_window(self.window, None)
        if isinstance(self.output_reserve, bool) or not isinstance(self.output_reserve, int) or self.output_reserve < 0:
            raise BudgetError(f"output_reserve must be an integer >= 0, got {self.output_reserve!r}")
        if not isinstance(self.labels, CallLabels):
            raise TypeError(f"labels must be a CallLabels, got {type(self.labels).__name__}")
        if self.recall is not None and not isinstance(self.recall, Recall):
            raise TypeError(f"recall must be a lychd_core.integrations.Recall, got {type(self.recall).__name__}")
        self._char_cap = outbound_char_cap(self.governors, self.window)
        self._input_limit = None if self.window is None else request_input_limit(self.window, self.output_reserve)
        self.egress.target(self.target)  # an unknown target fails here, not at the first request

    @property
    def char_cap(self) -> int:
        """min(char_cap, chars_per_token x window): the characters one request may send."""
        return self._char_cap

    @property
    def input_token_limit(self) -> int | None:
        """Input tokens one request may use (``window - output_reserve``), if the window is known."""
        return self._input_limit

    def check_instructions(self, instruction_chars: int) -> None:
        """Refuse now instructions that alone overflow the request cap (with the recall reserve)."""
        history_char_budget(self.governors, self.window, instruction_chars + self._reserve())

    def _reserve(self) -> int:
        return 0 if self.recall is None else self.recall.reserve_chars

    def govern(
        self,
        wire: Sequence[Message],
        *,
        instruction_chars: int,
        blocks: Sequence[Block] = (),
        continuation: bool | None = None,
        measure: Measure | None = None,
        conversation_id: str | None = None,
        trim_state: TrimState | None = None,
    ) -> OutboundOutcome:
        """Bound, recall and gate one request, or raise before the model is called.

        ``continuation``: whether the request continues an exchange (tool returns); default:
        whether the newest group holds more than one message. ``measure``: see ``Measure``.
        ``trim_state``: this conversation's previous history start (default: the engine's)."""
        state = self.trim_state if trim_state is None else trim_state
        with assembly_span(self.adapter, conversation_id) as span:
            recall = None
            if self.recall is not None:
                recall = resolve_recall(self.recall.receipt, self.recall.source())
            selection, sent, trim = self._bound(wire, instruction_chars, measure, state.start)
            bounded = selection.bounded
            if continuation is None:
                continuation = len(wire) > 0 and _continues(wire)
            decision = self._gate(blocks, bounded.kept_groups, continuation, recall is not None)
            if span.recording:
                self._record(span, selection, len(wire), sent, instruction_chars, decision)
            decision.raise_if_refused()
            state.start = bounded.start
            if recall is not None and self.recall is not None and self.recall.on_recall is not None:
                self.recall.on_recall(recall)
            return OutboundOutcome(selection, sent, instruction_chars, self._char_cap, recall, decision, trim)

    def _bound(
        self, wire: Sequence[Message], instruction_chars: int, measure: Measure | None, previous: int | None
    ) -> tuple[HistorySelection, int, TrimDecision]:
        reserve, rendering = self._reserve(), 0
        while True:  # each pass reserves what rendering added, so it keeps strictly less or refuses
            selection = select_outbound(
                wire,
                governors=self.governors,
                window=self.window,
                instruction_chars=instruction_chars + reserve,
                rendering_chars=rendering,
                profile=self.profile,
                policy=self.policy,
                cache=self._nodes,
            )
            bounded, trim = trim_outbound(
                wire,
                selection.bounded,
                history=self.history,
                previous=previous,
                governors=self.governors,
                char_budget=history_char_budget(self.governors, self.window, instruction_chars + reserve, rendering),
                text_of=getattr(wire, "text", None),
            )
            if bounded is not selection.bounded:
                selection = replace(selection, bounded=bounded)
            rendered = None if measure is None else measure(bounded)
            if rendered is None:
                return selection, bounded.chars, trim
            if rendered + instruction_chars + reserve <= self._char_cap:
                return selection, rendered, trim
            rendering = rendered - bounded.chars

    def _gate(self, blocks: Sequence[Block], kept_groups: int, continuation: bool, recalled: bool) -> EgressDecision:
        nodes = request_node_labels(blocks, self.labels, kept_groups=kept_groups, continuation=continuation)
        if recalled and self.recall is not None:
            nodes["recall"] = self.recall.label or PrivatizationLabel.restricted_unknown()
        name, target = self.egress.target(self.target)
        decision = decide_egress(nodes, name, target)
        if self.on_egress is not None:
            self.on_egress(decision)
        return decision

    def _record(
        self,
        span: AssemblySpan,
        selection: HistorySelection,
        history: int,
        sent: int,
        instruction_chars: int,
        decision: EgressDecision,
    ) -> None:
        bounded = selection.bounded
        plan = selection.plan
        span.set(
            {
                "lychd.counter": COUNTER,
                "lychd.chars_per_token": self.governors.chars_per_token,
                "lychd.budget.chars": self._char_cap,
                "lychd.budget.tokens": self._input_limit,
                "lychd.used.chars": sent + instruction_chars + self._reserve(),
                "lychd.instructions.chars": instruction_chars,
                "lychd.history.messages": history,
                "lychd.history.sent_messages": history - bounded.start,
                "lychd.history.kept_groups": bounded.kept_groups,
                "lychd.history.unscanned_messages": selection.unscanned_messages,
                "lychd.selected.count": (0 if plan is None else len(plan.selected)) or int(history > 0),
                "lychd.label.class": decision.label.privacy_class.value,
                "lychd.egress.target": decision.target,
                "lychd.egress.decision": "admitted" if decision.admitted else "refused",
                "lychd.recall": self.recall is not None,
                "gen_ai.conversation.compacted": False,
            }
        )
        span.set(omission_attributes(selection.omitted_by_reason()))


def _continues(wire: Sequence[Message]) -> bool:
    """Whether the newest message carries a tool return or retry (the exchange goes on)."""
    newest = wire[len(wire) - 1]
    return newest["kind"] == "request" and any(
        part.get("part_kind") in ("tool-return", "retry-prompt", "retry-feedback") for part in newest["parts"]
    )
