"""Assembly input errors: floor blocks, Execution Projections and adapter requests."""

from __future__ import annotations

from lychd_core.errors.base import AssemblyError, BlockError, ContextBudgetExceededError


class ExecutionProjectionError(AssemblyError):
    """An Execution Projection is malformed: no placement, duplicate keys, over its own bound."""


class FloorBlockError(BlockError):
    """A block offered as floor text is not a floor block, is out of order or repeats a key."""


class RequestInputLimitError(ContextBudgetExceededError):
    """A model request's provider-reported input tokens exceeded the per-request bound."""
