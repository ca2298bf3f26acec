"""Graph, budget and selection errors: a malformed graph, a sum past 2**63-1, required material
that cannot be selected whole."""

from __future__ import annotations

from lychd_core.errors.base import BudgetError, GraphError, SelectionError
from lychd_core.vocabulary import OmissionReason


class RequiredHiddenError(SelectionError):
    """A required node, or a member of its closure, is hidden from the role."""

    def __init__(self, message: str, *, node_id: str, hidden_id: str, path: tuple[str, ...]) -> None:
        super().__init__(message)
        self.node_id = node_id
        self.hidden_id = hidden_id
        self.path = path


class RequiredOverBudgetError(SelectionError):
    """The required closure does not fit a bound.

    ``bound`` names it; ``required``/``available`` are in its unit. ``required_tokens``
    is the token total of every required closure; ``available_tokens`` the usable input.
    """

    def __init__(
        self,
        message: str,
        *,
        node_id: str,
        bound: OmissionReason,
        required: int,
        available: int,
        required_tokens: int,
        available_tokens: int,
    ) -> None:
        super().__init__(message)
        self.node_id = node_id
        self.bound = bound
        self.required = required
        self.available = available
        self.required_tokens = required_tokens
        self.available_tokens = available_tokens


class DuplicateNodeError(GraphError):
    """Two nodes share one id."""

    def __init__(self, message: str, *, node_id: str) -> None:
        super().__init__(message)
        self.node_id = node_id


class MissingDependencyError(GraphError):
    """A node depends on an id that is not in the graph."""

    def __init__(self, message: str, *, node_id: str, missing: str) -> None:
        super().__init__(message)
        self.node_id = node_id
        self.missing = missing


class GraphCycleError(GraphError):
    """The dependencies form a cycle; ``cycle`` lists it, first id repeated last."""

    def __init__(self, message: str, *, cycle: tuple[str, ...]) -> None:
        super().__init__(message)
        self.cycle = cycle


class UnknownNodeError(GraphError, LookupError):
    """An id that is not a node of the graph."""


class AccountingOverflowError(BudgetError):
    """A sum of estimates or reservations exceeds ``MAX_INT``."""
