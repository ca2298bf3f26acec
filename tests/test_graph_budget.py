"""TokenBudget and SelectionBounds: checked integer arithmetic and typed errors."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.errors import AccountingOverflowError, BudgetError
from lychd_core.graph import MAX_INT, SelectionBounds, TokenBudget


def test_usable_is_window_minus_reservations() -> None:
    budget = TokenBudget(window=32_000, reserved_output=4_096, protocol_overhead=64)
    assert budget.usable == 32_000 - 4_096 - 64
    assert TokenBudget(32_000, 4_096).protocol_overhead == 0
    assert budget.to_json() == {
        "window": 32_000,
        "reserved_output": 4_096,
        "protocol_overhead": 64,
        "usable": 27_840,
    }


def test_the_largest_window_is_legal() -> None:
    assert TokenBudget(window=MAX_INT, reserved_output=0).usable == MAX_INT


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"window": 100, "reserved_output": 100}, "usable input must be > 0"),
        ({"window": 100, "reserved_output": 60, "protocol_overhead": 40}, "usable input must be > 0"),
        ({"window": 0, "reserved_output": 0}, "window must be >= 1"),
        ({"window": -5, "reserved_output": 0}, "window must be >= 1"),
        ({"window": 100, "reserved_output": -1}, "reserved_output must be >= 0"),
        ({"window": 100, "reserved_output": 0, "protocol_overhead": -1}, "protocol_overhead must be >= 0"),
        ({"window": 100.0, "reserved_output": 0}, "integer"),
        ({"window": True, "reserved_output": 0}, "integer"),
        ({"window": "100", "reserved_output": 0}, "integer"),
        ({"window": MAX_INT + 1, "reserved_output": 0}, "2\\*\\*63-1"),
        ({"window": 100, "reserved_output": MAX_INT + 1}, "2\\*\\*63-1"),
    ],
)
def test_bad_budgets_are_budget_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(BudgetError, match=match):
        TokenBudget(**kwargs)


def test_reservations_that_overflow_are_typed() -> None:
    with pytest.raises(AccountingOverflowError, match="overflows"):
        TokenBudget(window=MAX_INT, reserved_output=MAX_INT, protocol_overhead=1)


def test_bounds_default_to_unbounded_and_accept_zero() -> None:
    assert SelectionBounds().to_json() == {
        "max_nodes": None,
        "max_chars": None,
        "max_bytes": None,
        "max_history_groups": None,
    }
    assert SelectionBounds(max_history_groups=0).max_history_groups == 0


@pytest.mark.parametrize("name", ["max_nodes", "max_chars", "max_bytes", "max_history_groups"])
@pytest.mark.parametrize("value", [-1, 1.5, True, "3", MAX_INT + 1])
def test_bad_bounds_are_budget_errors(name: str, value: object) -> None:
    with pytest.raises(BudgetError, match=name):
        SelectionBounds(**{name: value})  # type: ignore[arg-type]
