"""Why each node was selected or omitted, and the plan that holds every explanation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from lychd_core.digests import json_digest
from lychd_core.graph.budget import BudgetAccounting, SelectionBounds, TokenBudget
from lychd_core.roles import RoleProfile

if TYPE_CHECKING:
    from lychd_core.graph.graph import ContextGraph

PLAN_FORMAT = "lychd.selection-plan"
PLAN_VERSION = 1


class SelectionReason(StrEnum):
    """Why a node is in the plan. A node keeps the first reason that selected it."""

    REQUIRED_ROOT = "required-root"
    REQUIRED_DEPENDENCY = "required-dependency"
    OPTIONAL_ROOT = "optional-root"
    OPTIONAL_DEPENDENCY = "optional-dependency"


class OmissionReason(StrEnum):
    """Why a node is not in the plan."""

    HIDDEN = "hidden"
    """The role's policy (class, provenance or the node's own ``visible_to``) hides it."""
    HIDDEN_DEPENDENCY = "hidden-dependency"
    """Something in its dependency closure is hidden, so it cannot be admitted whole."""
    TOKEN_BUDGET = "token-budget"
    CHARACTER_LIMIT = "character-limit"
    BYTE_LIMIT = "byte-limit"
    NODE_LIMIT = "node-limit"
    OUTSIDE_TURN_WINDOW = "outside-turn-window"
    """Admitting its closure would select more history groups than the turn window."""
    NOT_NEEDED = "not-needed"
    """A dependency-required node that no selected node depends on."""
    ALTERNATIVE_SELECTED = "alternative-selected"
    """Another member of its exclusive group (a resolution of the same material) was selected."""


@dataclass(frozen=True, slots=True)
class Explanation:
    """One node's fate. ``tokens``/``chars`` are the node's own size (its delta when selected)."""

    node_id: str
    selected: bool
    reason: SelectionReason | OmissionReason
    tokens: int
    chars: int
    detail: str
    root: str | None = None
    """For a selected node, the root whose admission brought it in (itself for a root)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "selected": self.selected,
            "reason": self.reason.value,
            "tokens": self.tokens,
            "chars": self.chars,
            "detail": self.detail,
            "root": self.root,
        }


@dataclass(frozen=True, slots=True)
class SelectionPlan:
    """The deterministic outcome of :func:`lychd_core.graph.select`.

    ``selected`` lists ids in admission order; ``explanations`` holds every node of the
    graph exactly once, in graph order.
    """

    profile: RoleProfile
    budget: TokenBudget
    bounds: SelectionBounds
    selected: tuple[str, ...]
    explanations: Mapping[str, Explanation]
    accounting: BudgetAccounting
    graph: ContextGraph = field(repr=False, compare=False)

    @property
    def role(self) -> str:
        return self.profile.role

    @property
    def omitted(self) -> tuple[str, ...]:
        """Ids of omitted nodes, in graph order."""
        chosen = set(self.selected)
        return tuple(node.id for node in self.graph.nodes if node.id not in chosen)

    @property
    def graph_digest(self) -> str:
        return self.graph.digest

    def is_selected(self, node_id: str) -> bool:
        return node_id in self.explanations and self.explanations[node_id].selected

    def to_json(self) -> dict[str, Any]:
        """A canonical-JSON-able description; see docs/selection.md for the format."""
        return {
            "format": PLAN_FORMAT,
            "version": PLAN_VERSION,
            "graph": self.graph_digest,
            "profile": self.profile.to_json(),
            "budget": self.budget.to_json(),
            "bounds": self.bounds.to_json(),
            "selected": list(self.selected),
            "explanations": {node_id: e.to_json() for node_id, e in self.explanations.items()},
            "accounting": self.accounting.to_json(),
        }

    @property
    def digest(self) -> str:
        """Digest of :meth:`to_json`."""
        return json_digest(self.to_json())
