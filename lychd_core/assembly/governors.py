"""The context governors: character cap, turn window and the per-request bound.

The character governor is deliberately conservative (3 characters per token by
default), not tokenizer accounting; the per-request token bound is independent.
"""

from __future__ import annotations

from dataclasses import dataclass

from lychd_core.errors import BudgetError, ContextBudgetExceededError
from lychd_core.graph.budget import MAX_INT, checked_int


def _check_int(name: str, value: object) -> int:
    """An integer within the checked range; the sign is checked where it matters, with context."""
    return checked_int(name, value, minimum=-MAX_INT - 1)


def resolve_window(generation_max_context: int | None, spec_max_context: int | None) -> int | None:
    """The known context window: the resolved generation profile's wins over the spec's."""
    for name, value in (("generation max_context", generation_max_context), ("spec max_context", spec_max_context)):
        if value is not None and _check_int(name, value) <= 0:
            raise BudgetError(f"{name} must be > 0, got {value}")
    return generation_max_context if generation_max_context is not None else spec_max_context


def effective_char_cap(char_cap: int, chars_per_token: int, window: int | None) -> int:
    """min(configured cap, chars_per_token x window) when a window is known."""
    _check_int("char_cap", char_cap)
    _check_int("chars_per_token", chars_per_token)
    if char_cap <= 0 or chars_per_token <= 0:
        raise BudgetError(f"char_cap and chars_per_token must be > 0, got {char_cap} and {chars_per_token}")
    if window is None:
        return char_cap
    return min(char_cap, chars_per_token * _check_int("window", window))


def request_input_limit(window: int, output_reserve: int) -> int:
    """Input tokens one model request may use; tool follow-ups and retries get the same."""
    _check_int("window", window)
    _check_int("output_reserve", output_reserve)
    if window <= 0 or output_reserve < 0:
        raise BudgetError(f"window must be > 0 and output reserve >= 0, got {window} and {output_reserve}")
    if output_reserve >= window:
        raise ContextBudgetExceededError(
            f"output reserve {output_reserve} leaves no input in a window of {window} tokens",
            required=output_reserve,
            available=window,
            parts={"output_reserve": output_reserve},
        )
    return window - output_reserve


@dataclass(frozen=True, slots=True)
class BoundedMessages:
    """Which messages one model request keeps: ``messages[start:]``, never a split group
    (``integrations.history_engine.select_history`` decides it)."""

    start: int
    kept_groups: int
    omitted_messages: int
    chars: int
    continuation_chars: int
