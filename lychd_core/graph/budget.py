"""Token budget, extra selection bounds and the accounting a plan records.

Arithmetic is checked as if every value were a signed 64-bit integer: inputs must be
real ``int`` (never ``bool`` or ``float``) and no input or sum may exceed ``MAX_INT``.
Python would not overflow, but a plan must mean the same thing to every consumer.
"""

from __future__ import annotations

from dataclasses import dataclass

from lychd_core.errors import AccountingOverflowError, BudgetError

MAX_INT = 2**63 - 1
"""Largest value of any budget, bound, estimate or sum."""


def checked_int(name: str, value: object, *, minimum: int) -> int:
    """``value`` if it is an ``int`` in ``[minimum, MAX_INT]``, else ``BudgetError``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise BudgetError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise BudgetError(f"{name} must be >= {minimum}, got {value}")
    if value > MAX_INT:
        raise BudgetError(f"{name} must be <= 2**63-1 ({MAX_INT}), got {value}")
    return value


def checked_add(what: str, *values: int) -> int:
    """Sum ``values``; ``AccountingOverflowError`` when it passes ``MAX_INT``."""
    total = 0
    for value in values:
        total += value
        if total > MAX_INT:
            raise AccountingOverflowError(f"{what} overflows 2**63-1 ({MAX_INT}); reduce the estimates")
    return total


@dataclass(frozen=True, slots=True)
class TokenBudget:
    """A context window split into reserved output, protocol overhead and usable input.

    ``usable = window - reserved_output - protocol_overhead`` must be > 0.
    """

    window: int
    reserved_output: int
    protocol_overhead: int = 0

    def __post_init__(self) -> None:
        checked_int("window", self.window, minimum=1)
        checked_int("reserved_output", self.reserved_output, minimum=0)
        checked_int("protocol_overhead", self.protocol_overhead, minimum=0)
        reserved = checked_add("reserved_output + protocol_overhead", self.reserved_output, self.protocol_overhead)
        if self.window - reserved <= 0:
            raise BudgetError(
                f"no usable input: window {self.window} - reserved output {self.reserved_output} - protocol "
                f"overhead {self.protocol_overhead} = {self.window - reserved}; usable input must be > 0, "
                "so raise the window or reserve less"
            )

    @property
    def usable(self) -> int:
        """Tokens available for selected input."""
        return self.window - self.reserved_output - self.protocol_overhead

    def to_json(self) -> dict[str, int]:
        return {
            "window": self.window,
            "reserved_output": self.reserved_output,
            "protocol_overhead": self.protocol_overhead,
            "usable": self.usable,
        }


@dataclass(frozen=True, slots=True)
class SelectionBounds:
    """Optional extra bounds checked with every admission; ``None`` means unbounded.

    ``max_history_groups`` counts selected nodes of class ``history`` (the turn window).
    """

    max_nodes: int | None = None
    max_chars: int | None = None
    max_bytes: int | None = None
    max_history_groups: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_nodes", "max_chars", "max_bytes", "max_history_groups"):
            value = getattr(self, name)
            if value is not None:
                checked_int(name, value, minimum=0)

    def to_json(self) -> dict[str, int | None]:
        return {
            "max_nodes": self.max_nodes,
            "max_chars": self.max_chars,
            "max_bytes": self.max_bytes,
            "max_history_groups": self.max_history_groups,
        }


@dataclass(frozen=True, slots=True)
class BudgetAccounting:
    """What a plan used: capacity, reservations, usable, selected and remaining input."""

    capacity: int
    reserved_output: int
    protocol_overhead: int
    usable: int
    selected: int
    remaining: int
    selected_chars: int
    selected_bytes: int
    selected_nodes: int
    selected_history_groups: int

    @classmethod
    def of(
        cls, budget: TokenBudget, *, tokens: int, chars: int, nbytes: int, nodes: int, history: int
    ) -> BudgetAccounting:
        if tokens > budget.usable:
            raise BudgetError(f"selected {tokens} tokens but only {budget.usable} are usable")
        return cls(
            capacity=budget.window,
            reserved_output=budget.reserved_output,
            protocol_overhead=budget.protocol_overhead,
            usable=budget.usable,
            selected=tokens,
            remaining=budget.usable - tokens,
            selected_chars=chars,
            selected_bytes=nbytes,
            selected_nodes=nodes,
            selected_history_groups=history,
        )

    def to_json(self) -> dict[str, int]:
        return {
            "capacity": self.capacity,
            "reserved_output": self.reserved_output,
            "protocol_overhead": self.protocol_overhead,
            "usable": self.usable,
            "selected": self.selected,
            "remaining": self.remaining,
            "selected_chars": self.selected_chars,
            "selected_bytes": self.selected_bytes,
            "selected_nodes": self.selected_nodes,
            "selected_history_groups": self.selected_history_groups,
        }
