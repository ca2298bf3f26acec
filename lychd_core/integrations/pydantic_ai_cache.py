"""Provider prompt caching and token accounting for the Pydantic AI adapter.

Cache points go where a prefix stays byte-identical between requests: after the Stable
Floor (the static instructions, through Pydantic AI's unified ``cache`` setting with the
moving conversation breakpoint off) and at the end of the retained settled history (a
``CachePoint`` in the last settled user prompt, on a copy: the run's messages are never
edited). Together at most 3 of Anthropic's 4 breakpoints (instructions, tool definitions,
history). Pre-counting asks the model's own ``count_tokens`` where it has one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Literal

from pydantic_ai.messages import CachePoint, ModelMessage, ModelRequest, UserPromptPart
from pydantic_ai.models import Model, ModelRequestContext

from lychd_core.history import iter_groups_newest_first
from lychd_core.integrations.outbound import LazyWire

CacheTtl = Literal["5m", "1h"]
FLOOR_CACHE_SETTING: dict[str, Any] = {"messages": False}
"""Pydantic AI's unified ``cache`` setting that caches only the stable prefix (tools and instructions)."""


def place_history_cache_point(
    suffix: Sequence[ModelMessage], settled_end: int, ttl: CacheTtl = "5m"
) -> tuple[list[ModelMessage], int]:
    """``suffix`` with a ``CachePoint`` after the last user prompt of ``suffix[:settled_end]``
    (the retained settled history), as new message and part objects; how many were placed (0 or 1)."""
    messages = list(suffix)
    for index in range(min(settled_end, len(messages)) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, ModelRequest):
            continue
        for at in range(len(message.parts) - 1, -1, -1):
            part = message.parts[at]
            if isinstance(part, UserPromptPart):
                content = [part.content] if isinstance(part.content, str) else list(part.content)
                parts = list(message.parts)
                parts[at] = dataclasses.replace(part, content=[*content, CachePoint(ttl=ttl)])
                messages[index] = dataclasses.replace(message, parts=parts)
                return messages, 1
    return messages, 0


def cache_floor(request_context: ModelRequestContext) -> int:
    """Ask for the stable prefix to be cached, unless the caller configured caching itself; 1 if asked."""
    settings = dict(request_context.model_settings or {})
    if "cache" in settings or any(key.endswith(("_cache", "_cache_instructions")) for key in settings):
        return 0
    settings["cache"] = FLOOR_CACHE_SETTING
    request_context.model_settings = settings  # type: ignore[assignment]
    return 1


async def precount(model: Model, request_context: ModelRequestContext) -> int | None:
    """Input tokens by the model's own ``count_tokens``, or ``None`` where it has none."""
    try:
        usage = await model.count_tokens(
            list(request_context.messages), request_context.model_settings, request_context.model_request_parameters
        )
    except NotImplementedError:
        return None
    return usage.input_tokens


def settled_end(wire: LazyWire[ModelMessage], start: int, end: int) -> int:
    """Index, within ``wire[start:end]``, of the first message of the current exchange."""
    current = next(iter_groups_newest_first(wire, wire.text), None)
    return (end if current is None else current.start) - start
