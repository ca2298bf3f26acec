"""Pydantic AI adapter: wire-form conversion and a capability that bounds what each
model request sees, outbound-only.

Install with ``pip install 'lychd-core[pydantic-ai]'``. In Pydantic AI 2.x history
processing is a capability. The stock ``ProcessHistory`` writes its result back into
the run's messages, so trimming with it deletes history. ``GovernedContext`` instead
trims in ``before_model_request``, whose ``request_context.messages`` is, by Pydantic
AI's contract, the request-only view: the run's ``all_messages()`` stays whole.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pydantic
import pydantic_core

from lychd_core.errors import RequestInputLimitError

try:
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import (
        InstructionPart,
        ModelMessage,
        ModelMessagesTypeAdapter,
        ModelRequest,
        ModelResponse,
    )
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
from lychd_core.assembly.governors import BoundedMessages, request_input_limit, resolve_window
from lychd_core.assembly.trim import TrimDecision, TrimState
from lychd_core.blocks import Block
from lychd_core.config import AssemblyConfig, Governors, LychdConfig
from lychd_core.config.tokens import HistoryConfig
from lychd_core.errors import BudgetError, HistoryError
from lychd_core.history import Message, check_message, check_messages, iter_groups_newest_first, message_chars
from lychd_core.integrations.egress import CallLabels
from lychd_core.integrations.outbound import LazyWire, measured
from lychd_core.integrations.outbound_engine import OutboundEngine
from lychd_core.integrations.pydantic_ai_cache import CacheTtl, cache_floor, place_history_cache_point, precount
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


# --- wire form ------------------------------------------------------------------


def _dump(messages: Sequence[ModelMessage]) -> list[Message]:
    for index, message in enumerate(messages):
        if not isinstance(message, (ModelRequest, ModelResponse)):
            raise HistoryError(
                f"messages[{index}]: expected a pydantic_ai ModelRequest or ModelResponse, got {type(message).__name__}"
            )
    try:
        wire: list[Message] = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
    except (pydantic_core.PydanticSerializationError, TypeError, ValueError, AttributeError) as exc:
        raise HistoryError(
            f"messages could not be written in the Pydantic AI wire form: {exc}; "
            "expected pydantic_ai ModelRequest/ModelResponse objects"
        ) from None
    return wire


def to_wire(messages: Sequence[ModelMessage]) -> list[Message]:
    """Pydantic AI messages in the JSON wire form lychd history uses, validated."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise HistoryError(f"messages must be a sequence of Pydantic AI messages, got {type(messages).__name__}")
    return check_messages(_dump(messages), "messages")


def from_wire(wire: object) -> list[ModelMessage]:
    """Wire-form messages back to Pydantic AI messages; ``from_wire(to_wire(m)) == m``."""
    checked = check_messages(wire, "wire")
    try:
        return ModelMessagesTypeAdapter.validate_python(checked)
    except pydantic.ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(loc) for loc in error['loc'])}: {error['msg']}" for error in exc.errors()[:5]
        )
        raise HistoryError(
            f"wire messages are not valid Pydantic AI messages ({exc.error_count()} problems): {problems}"
        ) from None


def _wire_of(message: ModelMessage) -> Message:
    return check_message(_dump([message])[0], "message")


def _wires_of(messages: Sequence[ModelMessage]) -> list[Message]:
    """Several messages in one serializer call; on failure, one by one, so the error
    names the message that failed."""
    try:
        dumped = _dump(messages)
    except HistoryError:
        return [_wire_of(message) for message in messages]
    return [check_message(message, "message") for message in dumped]


# Parts a model sends as recorded. Others (retries fenced as prompts, instruction deltas,
# context-id system prompts, native tool search, opaque kinds) may grow when rendered.
SENT_AS_RECORDED = frozenset({"user-prompt", "tool-call", "tool-return", "text", "thinking", "file"})


def _rendering_may_add(wire: Sequence[Message], start: int, model: Any) -> bool:
    """Whether the model's rendering of ``wire[start:]`` may hold more than its wire form:
    only then is it measured (one ``prepare_messages`` call besides Pydantic AI's own)."""
    if getattr(getattr(model, "profile", None), "may_tokenize_special_tokens_in_content", False):
        return True  # a zero-width joiner may go into any special token
    return any(part.get("part_kind") not in SENT_AS_RECORDED for message in wire[start:] for part in message["parts"])


def _measured_chars(messages: Sequence[ModelMessage]) -> int:
    """Characters of messages as rendered for the model, counted like history (see ``outbound``)."""
    return sum(message_chars(measured(message)) for message in _dump(messages))


# --- the per-request token bound -------------------------------------------------


def request_usage_limits(
    window: int,
    output_reserve: int,
    *,
    base: UsageLimits | None = None,
    count_tokens_before_request: bool | None = None,
) -> UsageLimits:
    """``UsageLimits`` bounding every single request by ``window - output_reserve`` input tokens.

    Uses ``per_request_input_tokens_limit``, checked against each request on its own
    (tool follow-ups and retries included), unlike ``input_tokens_limit``, which
    bounds the whole run's accumulated usage. With ``count_tokens_before_request``
    the bound is checked before sending, for models that implement ``count_tokens``;
    otherwise against provider-reported usage after each response. Other fields come
    from ``base`` (default: ``UsageLimits()``).
    """
    limits = base if base is not None else UsageLimits()
    changes: dict[str, Any] = {"per_request_input_tokens_limit": request_input_limit(window, output_reserve)}
    if count_tokens_before_request is not None:
        changes["count_tokens_before_request"] = count_tokens_before_request
    return dataclasses.replace(limits, **changes)


# --- the capability --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OutboundBound:
    """What one model request was sent, and why: the explanation of one bounding."""

    run_id: str | None
    run_step: int
    history_messages: int  # in the run's whole history
    sent_messages: int  # the suffix sent: the current exchange and the kept settled groups
    omitted_messages: int  # older messages left out of this request (still in history)
    kept_groups: int  # settled groups kept, besides the current exchange
    history_chars: int  # measured characters of the kept messages, as recorded in history
    continuation_chars: int  # of which the current exchange
    sent_chars: int  # measured characters of the kept messages as rendered for the model
    instruction_chars: int  # the instructions sent, the floor text included
    char_cap: int  # min(char_cap, chars_per_token x window)
    input_token_limit: int | None  # window - output_reserve, when the window is known
    trim: TrimDecision | None = None  # where the kept history starts under [history] trim, and why
    token_counter: str | None = None  # the pin of the counter that made estimated_tokens
    estimated_tokens: int | None = None  # that counter's count of the instructions and the sent messages
    counted_tokens: int | None = None  # the model's own count_tokens, where it has one (precount=True)
    cache_points: int = 0  # provider cache points asked for (floor, end of the retained settled history)
    reported_input_tokens: int | None = None  # provider-reported, in the on_usage report after the response
    cache_read_tokens: int | None = None  # provider-reported tokens read from its prompt cache
    cache_write_tokens: int | None = None  # provider-reported tokens written to its prompt cache

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["trim"] = None if self.trim is None else self.trim.to_json()
        return data


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
        parameters = request_context.model_request_parameters
        model = request_context.model
        instruction_chars = len(InstructionPart.join(parameters.instruction_parts or []) or "")
        wire = LazyWire(messages, _wire_of, _wires_of, memo=self._memo, checked=True)

        def rendered(bound: BoundedMessages) -> int | None:
            if not _rendering_may_add(wire, bound.start, model):
                return None  # sent as recorded: the wire form is what is sent
            return _measured_chars(model.prepare_messages(list(messages[bound.start :]), parameters))

        outcome = self._engine.govern(  # bounds, gates egress, records the span: before the model is called
            wire,
            instruction_chars=instruction_chars,
            blocks=(*self._floor, *self._dynamic),
            continuation=ctx.run_step > 1,
            measure=rendered,
        )
        bound = outcome.bounded
        # A new list: the request-only view. The message objects are shared, never edited.
        suffix = messages[bound.start :]
        request_context.messages = suffix
        counter = self.token_counter or reference_counter(self.governors.chars_per_token)
        estimated = counter.count(InstructionPart.join(parameters.instruction_parts or []) or "") + sum(
            counter.count(wire.text(index)) for index in range(bound.start, len(messages))
        )
        points = 0
        if self.cache_points:
            request_context.messages, points = place_history_cache_point(
                suffix, _settled_end(wire, bound.start, len(messages)), self.cache_ttl
            )
            points += cache_floor(request_context)
        counted = await precount(model, request_context) if self.precount else None
        report = OutboundBound(
            run_id=ctx.run_id,
            run_step=ctx.run_step,
            history_messages=len(messages),
            sent_messages=len(suffix),
            omitted_messages=bound.omitted_messages,
            kept_groups=bound.kept_groups,
            history_chars=bound.chars,
            continuation_chars=bound.continuation_chars,
            sent_chars=outcome.sent_chars,
            instruction_chars=instruction_chars,
            char_cap=outcome.char_cap,
            input_token_limit=self.input_token_limit,
            trim=outcome.trim,
            token_counter=counter.pin,
            estimated_tokens=estimated,
            counted_tokens=counted,
            cache_points=points,
        )
        limit = self.input_token_limit
        if counted is not None and limit is not None and counted > limit:
            raise RequestInputLimitError(
                f"model request {ctx.run_step} would use {counted} input tokens (the model's count_tokens) but each "
                f"request may use {limit}",
                required=counted,
                available=limit,
                parts={"counted_input_tokens": counted},
            )
        self._pending[(ctx.run_id, ctx.run_step)] = report
        if self.on_bound is not None:
            self.on_bound(report)
        return request_context

    async def after_model_request(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        """Refuse a response whose provider-reported input exceeded the per-request bound,
        before its tool calls or output can advance the run."""
        limit = self.input_token_limit
        used = response.usage.input_tokens
        self._report_usage(ctx, request_context, response)
        if limit is not None and used > limit:
            raise RequestInputLimitError(
                f"model request {ctx.run_step} used {used} input tokens (provider-reported) but each request may "
                f"use {limit} (window {self.window} - output reserve {self.output_reserve})",
                required=used,
                available=limit,
                parts={"provider_input_tokens": used},
            )
        return response

    def _report_usage(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext, response: ModelResponse
    ) -> None:
        report = self._pending.pop((ctx.run_id, ctx.run_step), None)
        if report is None:
            return
        usage = response.usage
        report = dataclasses.replace(
            report,
            reported_input_tokens=usage.input_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
        )
        if self.calibration is not None and usage.input_tokens > 0:
            model = request_context.model
            chars = report.sent_chars + report.instruction_chars
            if chars > 0:
                self.calibration.record(f"{model.system}:{model.model_name}", chars, usage.input_tokens, 333_334)
        if self.on_usage is not None:
            self.on_usage(report)


def _settled_end(wire: LazyWire[ModelMessage], start: int, end: int) -> int:
    """Index, within ``wire[start:end]``, of the first message of the current exchange."""
    current = next(iter_groups_newest_first(wire, wire.text), None)
    return (end if current is None else current.start) - start
