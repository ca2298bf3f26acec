"""What the Pydantic AI adapter reports per request, and the per-request token bound.

``OutboundBound`` explains one bounding; after the response it is completed with the
provider-reported input and cache tokens. ``request_usage_limits`` and the checks here
bound every single request by ``window - output_reserve`` input tokens.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pydantic_ai.usage import RequestUsage, UsageLimits

from lychd_core.assembly.governors import request_input_limit
from lychd_core.assembly.trim import TrimDecision
from lychd_core.errors import RequestInputLimitError


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


def with_usage(report: OutboundBound, usage: RequestUsage) -> OutboundBound:
    """``report`` completed by the provider-reported input and cache tokens."""
    return dataclasses.replace(
        report,
        reported_input_tokens=usage.input_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
    )


def check_counted(step: int, counted: int | None, limit: int | None) -> None:
    """Refuse before sending when the model's own ``count_tokens`` passes the per-request bound."""
    if counted is not None and limit is not None and counted > limit:
        raise RequestInputLimitError(
            f"model request {step} would use {counted} input tokens (the model's count_tokens) but each "
            f"request may use {limit}",
            required=counted,
            available=limit,
            parts={"counted_input_tokens": counted},
        )


def check_reported(step: int, used: int, limit: int | None, window: int | None, output_reserve: int) -> None:
    """Refuse a response whose provider-reported input passed the per-request bound."""
    if limit is not None and used > limit:
        raise RequestInputLimitError(
            f"model request {step} used {used} input tokens (provider-reported) but each request may "
            f"use {limit} (window {window} - output reserve {output_reserve})",
            required=used,
            available=limit,
            parts={"provider_input_tokens": used},
        )
