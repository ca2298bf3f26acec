"""Pydantic AI adapter: wire-form conversion and a capability that bounds what each
model request sees, outbound-only.

Install with ``pip install 'lychd-core[pydantic-ai]'``. In Pydantic AI 2.x history
processing is a capability. The stock ``ProcessHistory`` writes its result back into
the run's messages, so trimming with it deletes history. ``GovernedContext`` instead
trims in ``before_model_request``, whose ``request_context.messages`` is, by Pydantic
AI's contract, the request-only view: the run's ``all_messages()`` stays whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

try:
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import InstructionPart, ModelMessage, ModelResponse
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.tools import AgentDepsT
    from pydantic_ai.usage import UsageLimits
except ModuleNotFoundError as exc:  # the optional extra is missing: say how to get it
    raise ModuleNotFoundError(
        f"lychd_core.integrations.pydantic_ai needs Pydantic AI ({exc}); "
        "install it with: pip install 'lychd-core[pydantic-ai]'",
        name=exc.name,
    ) from exc

from lychd_core.assembly.floor import BLOCK_SEPARATOR, check_floor, render_block
from lychd_core.assembly.governors import BoundedMessages, resolve_window
from lychd_core.assembly.trim import TrimState
from lychd_core.blocks import Block
from lychd_core.config import AssemblyConfig, Governors, LychdConfig
from lychd_core.config.tokens import HistoryConfig
from lychd_core.errors import BudgetError, RequestInputLimitError
from lychd_core.integrations.egress import CallLabels
from lychd_core.integrations.outbound import LazyWire
from lychd_core.integrations.outbound_engine import OutboundEngine, OutboundOutcome
from lychd_core.integrations.pydantic_ai_cache import (
    CacheTtl,
    cache_floor,
    place_history_cache_point,
    precount,
    settled_end,
)
from lychd_core.integrations.pydantic_ai_report import (
    OutboundBound,
    check_counted,
    check_reported,
    request_usage_limits,
    with_usage,
)
from lychd_core.integrations.pydantic_ai_wire import (
    from_wire,
    measured_chars,
    rendering_may_add,
    to_wire,
    wire_of,
    wires_of,
)
from lychd_core.integrations.wire_memo import WireMemo
from lychd_core.privacy import EgressConfig, EgressDecision
from lychd_core.registry import Registry, get_registry
from lychd_core.tokens import BoundCounter, CalibrationStore, reference_counter
from lychd_core.tokens.resolve import resolve_counter

__all__ = [
    "GovernedContext",
    "OutboundBound",
    "RequestInputLimitError",
    "from_wire",
    "request_usage_limits",
    "to_wire",
]

DEFAULT_OUTPUT_RESERVE = AssemblyConfig().reserve_output


# --- the capability --------------------------------------------------------------


FloorProvider = Callable[[RunContext[AgentDepsT]], Sequence[Block]]


@dataclass(kw_only=True)
class GovernedContext(AbstractCapability[AgentDepsT]):
    """Bound what each model request sees; never delete the run's history.

    - ``floor``: ordered Stable Floor blocks (layers 1-4), static instructions.
    - ``dynamic_floor``: blocks computed per request (layers not below the static
      floor's last), rendered as a dynamic instruction.
    - ``governors``: turn window, character cap, characters per token.
    - ``window`` / ``output_reserve``: the known context window (tokens) and the
      output reservation; each request's input is bounded by their difference.
    - ``on_bound``: called with an ``OutboundBound`` for every request attempt.
    - ``target`` / ``egress`` / ``labels``: the egress target, the configured targets, and
      the caller's labels for history, the current exchange and the query. Every request
      is checked before the model is called; a refusal raises ``EgressRefused``.
    - ``on_egress``: called with the ``EgressDecision`` of every request attempt.
    - ``history`` / ``trim_state``: the ``[history] trim`` policy and the previous start of
      the kept history it continues from (``chunked``); one ``trim_state`` per conversation.
    - ``token_counter``: counts ``estimated_tokens`` of every request (default: the
      reference, ceil(chars / chars_per_token)); ``precount``: also ask the model's own
      ``count_tokens`` where it has one, and refuse before sending past the token limit.
    - ``cache_points``: ask the provider to cache the floor and the retained settled history
      (``cache_ttl``); ``on_usage``: called after each response with the request's
      ``OutboundBound`` completed by the provider-reported input and cache tokens;
      ``calibration``: a ``CalibrationStore`` that learns the model's token ratio from them.
    """

    floor: Sequence[Block] = ()
    dynamic_floor: FloorProvider[AgentDepsT] | None = None
    governors: Governors = field(default_factory=Governors)
    window: int | None = None
    output_reserve: int = DEFAULT_OUTPUT_RESERVE
    on_bound: Callable[[OutboundBound], None] | None = None
    target: str | None = None
    egress: EgressConfig = field(default_factory=EgressConfig)
    labels: CallLabels = field(default_factory=CallLabels)
    on_egress: Callable[[EgressDecision], None] | None = None
    history: HistoryConfig = field(default_factory=HistoryConfig)
    trim_state: TrimState = field(default_factory=TrimState)
    token_counter: BoundCounter | None = None
    cache_points: bool = False
    cache_ttl: CacheTtl = "5m"
    precount: bool = False
    on_usage: Callable[[OutboundBound], None] | None = None
    calibration: CalibrationStore | None = None
    _pending: dict[tuple[str | None, int], OutboundBound] = field(init=False, repr=False, default_factory=dict)
    _dynamic: tuple[Block, ...] = field(init=False, repr=False, default=())
    _floor: tuple[Block, ...] = field(init=False, repr=False, default=())
    _floor_text: str = field(init=False, repr=False, default="")
    _engine: OutboundEngine = field(init=False, repr=False, compare=False)
    # Settled messages are the same objects request after request: convert each once.
    _memo: WireMemo[ModelMessage] = field(init=False, repr=False, compare=False, default_factory=WireMemo)

    def __post_init__(self) -> None:
        self._engine = OutboundEngine(
            adapter="pydantic-ai",
            governors=self.governors,
            window=self.window,
            output_reserve=self.output_reserve,
            target=self.target,
            egress=self.egress,
            labels=self.labels,
            on_egress=self.on_egress,
            history=self.history,
            trim_state=self.trim_state,
        )
        self.window = self._engine.window
        self._floor = check_floor(self.floor)
        self._floor_text = BLOCK_SEPARATOR.join(render_block(block) for block in self._floor)
        self._engine.check_instructions(len(self._floor_text))  # the static floor must fit

    @classmethod
    def from_config(
        cls,
        config: LychdConfig,
        *,
        floor: Sequence[Block] = (),
        dynamic_floor: FloorProvider[AgentDepsT] | None = None,
        window: int | None = None,
        on_bound: Callable[[OutboundBound], None] | None = None,
        target: str | None = None,
        labels: CallLabels | None = None,
        model: str | None = None,
        registry: Registry | None = None,
    ) -> GovernedContext[AgentDepsT]:
        """Governors, output reserve, egress targets, ``[history]`` and ``[tokens]`` from a
        deployment config; ``window`` (the granted model's) wins over ``config.assembly.window``;
        ``model`` picks its own counter from ``[tokens.models]`` (default: ``[tokens] counter``)."""
        counter = resolve_counter(config, registry or get_registry(), model=model)
        return cls(
            floor=floor,
            dynamic_floor=dynamic_floor,
            governors=config.governors,
            window=resolve_window(window, config.assembly.window),
            output_reserve=config.assembly.reserve_output,
            history=config.history,
            token_counter=counter,
            on_bound=on_bound,
            target=target,
            egress=config.egress,
            labels=labels or CallLabels(),
        )

    @property
    def floor_text(self) -> str:
        """The static floor as sent: each block between its boundary lines."""
        return self._floor_text

    @property
    def char_cap(self) -> int:
        return self._engine.char_cap

    @property
    def input_token_limit(self) -> int | None:
        """Input tokens one request may use (``window - output_reserve``), if the window is known."""
        return self._engine.input_token_limit

    def usage_limits(
        self, *, base: UsageLimits | None = None, count_tokens_before_request: bool | None = None
    ) -> UsageLimits:
        """``request_usage_limits`` for this capability's window and reserve."""
        if self.window is None:
            raise BudgetError("usage_limits needs a known window; construct GovernedContext with window=...")
        return request_usage_limits(
            self.window, self.output_reserve, base=base, count_tokens_before_request=count_tokens_before_request
        )

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds Blocks and callables: not spec-serializable

    def get_instructions(self) -> list[str | Callable[[RunContext[AgentDepsT]], str | None]] | None:
        instructions: list[str | Callable[[RunContext[AgentDepsT]], str | None]] = []
        if self._floor_text:
            instructions.append(self._floor_text)
        if self.dynamic_floor is not None:
            instructions.append(self._render_dynamic_floor)
        return instructions or None

    def _render_dynamic_floor(self, ctx: RunContext[AgentDepsT]) -> str | None:
        assert self.dynamic_floor is not None
        after = self._floor[-1].layer if self._floor else None
        taken = frozenset((block.layer, block.key) for block in self._floor)
        blocks = check_floor(self.dynamic_floor(ctx), after=after, taken_keys=taken, what="dynamic_floor")
        self._dynamic = blocks  # their labels join this request's egress check
        return BLOCK_SEPARATOR.join(render_block(block) for block in blocks) or None

    async def before_model_request(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """Send only the bounded suffix; ``ctx.messages`` (the run's history) is untouched.

        It runs once per request step, before Pydantic AI prepares the request for a model,
        so everything after it (every attempt, every fallback model) handles the suffix,
        not the whole history; the bound is in characters of the wire form, the same for
        every model. Messages are converted newest first, only as far as bounding reads.
        """
        messages = request_context.messages
        instructions = InstructionPart.join(request_context.model_request_parameters.instruction_parts or []) or ""
        wire = LazyWire(messages, wire_of, wires_of, memo=self._memo, checked=True)
        outcome = self._govern(ctx, request_context, wire, len(instructions))
        start = outcome.bounded.start
        # A new list: the request-only view. The message objects are shared, never edited.
        request_context.messages = messages[start:]
        counter = self.token_counter or reference_counter(self.governors.chars_per_token)
        estimated = counter.count(instructions) + sum(counter.count(wire.text(i)) for i in range(start, len(messages)))
        points = self._place_cache_points(request_context, wire, start, len(messages))
        counted = await precount(request_context.model, request_context) if self.precount else None
        report = self._report(ctx, outcome, len(messages), len(instructions), counter.pin, estimated, counted, points)
        check_counted(ctx.run_step, counted, self.input_token_limit)
        self._pending[(ctx.run_id, ctx.run_step)] = report
        if self.on_bound is not None:
            self.on_bound(report)
        return request_context

    def _govern(
        self,
        ctx: RunContext[AgentDepsT],
        request_context: ModelRequestContext,
        wire: LazyWire[ModelMessage],
        instruction_chars: int,
    ) -> OutboundOutcome:
        """Bound, gate egress and record the span: before the model is called."""
        messages, parameters, model = (
            request_context.messages,
            request_context.model_request_parameters,
            request_context.model,
        )

        def rendered(bound: BoundedMessages) -> int | None:
            if not rendering_may_add(wire, bound.start, model):
                return None  # sent as recorded: the wire form is what is sent
            return measured_chars(model.prepare_messages(list(messages[bound.start :]), parameters))

        return self._engine.govern(
            wire,
            instruction_chars=instruction_chars,
            blocks=(*self._floor, *self._dynamic),
            continuation=ctx.run_step > 1,
            measure=rendered,
        )

    def _place_cache_points(
        self, request_context: ModelRequestContext, wire: LazyWire[ModelMessage], start: int, end: int
    ) -> int:
        """Provider cache points after the floor and the retained settled history, when asked for."""
        if not self.cache_points:
            return 0
        request_context.messages, points = place_history_cache_point(
            request_context.messages, settled_end(wire, start, end), self.cache_ttl
        )
        return points + cache_floor(request_context)

    def _report(
        self,
        ctx: RunContext[AgentDepsT],
        outcome: OutboundOutcome,
        history_messages: int,
        instruction_chars: int,
        counter: str,
        estimated: int,
        counted: int | None,
        points: int,
    ) -> OutboundBound:
        bound = outcome.bounded
        return OutboundBound(
            run_id=ctx.run_id,
            run_step=ctx.run_step,
            history_messages=history_messages,
            sent_messages=history_messages - bound.start,
            omitted_messages=bound.omitted_messages,
            kept_groups=bound.kept_groups,
            history_chars=bound.chars,
            continuation_chars=bound.continuation_chars,
            sent_chars=outcome.sent_chars,
            instruction_chars=instruction_chars,
            char_cap=outcome.char_cap,
            input_token_limit=self.input_token_limit,
            trim=outcome.trim,
            token_counter=counter,
            estimated_tokens=estimated,
            counted_tokens=counted,
            cache_points=points,
        )

    async def after_model_request(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        """Refuse a response whose provider-reported input exceeded the per-request bound,
        before its tool calls or output can advance the run."""
        self._report_usage(ctx, request_context, response)
        check_reported(
            ctx.run_step, response.usage.input_tokens, self.input_token_limit, self.window, self.output_reserve
        )
        return response

    def _report_usage(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext, response: ModelResponse
    ) -> None:
        report = self._pending.pop((ctx.run_id, ctx.run_step), None)
        if report is None:
            return
        usage = response.usage
        report = with_usage(report, usage)
        if self.calibration is not None and usage.input_tokens > 0:
            model = request_context.model
            chars = report.sent_chars + report.instruction_chars
            if chars > 0:
                self.calibration.record(f"{model.system}:{model.model_name}", chars, usage.input_tokens, 333_334)
        if self.on_usage is not None:
            self.on_usage(report)
