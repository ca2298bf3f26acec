"""Why each node was selected or omitted, as data, and the plan that holds every explanation.

Every figure a program may act on is a typed field of :class:`Explanation`; its
``detail`` prose is generated from those fields, never the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from lychd_core.digests import json_digest
from lychd_core.graph.budget import BudgetAccounting, SelectionBounds, TokenBudget
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import OmissionReason

if TYPE_CHECKING:
    from lychd_core.graph.graph import ContextGraph

PLAN_FORMAT = "lychd.selection-plan"
PLAN_VERSION = 2


class SelectionReason(StrEnum):
    """Why a node is in the plan. A node keeps the first reason that selected it."""

    REQUIRED_ROOT = "required-root"
    REQUIRED_DEPENDENCY = "required-dependency"
    OPTIONAL_ROOT = "optional-root"
    OPTIONAL_DEPENDENCY = "optional-dependency"


class Bound(StrEnum):
    """A bound a closure is checked against, in :data:`BOUND_ORDER`."""

    TOKENS = "tokens"
    NODES = "nodes"
    CHARACTERS = "characters"
    BYTES = "bytes"
    TURN_WINDOW = "turn-window"

    @property
    def reason(self) -> OmissionReason:
        """The omission reason a closure over this bound gets."""
        return _BOUND_REASON[self]

    @property
    def unit(self) -> str:
        return _BOUND_UNIT[self]


BOUND_ORDER = (Bound.TOKENS, Bound.NODES, Bound.CHARACTERS, Bound.BYTES, Bound.TURN_WINDOW)
"""The fixed order a closure is checked in: the first bound it exceeds is the one reported."""

_BOUND_REASON = {
    Bound.TOKENS: OmissionReason.TOKEN_BUDGET,
    Bound.NODES: OmissionReason.NODE_LIMIT,
    Bound.CHARACTERS: OmissionReason.CHARACTER_LIMIT,
    Bound.BYTES: OmissionReason.BYTE_LIMIT,
    Bound.TURN_WINDOW: OmissionReason.OUTSIDE_TURN_WINDOW,
}
_BOUND_UNIT = {
    Bound.TOKENS: "tokens",
    Bound.NODES: "nodes",
    Bound.CHARACTERS: "characters",
    Bound.BYTES: "bytes",
    Bound.TURN_WINDOW: "history groups",
}


@dataclass(frozen=True, slots=True)
class Amounts:
    """One amount per bound: what a closure needs, or what remained of each bound.

    ``None`` (only in ``remaining``) means the bound was not set.
    """

    tokens: int | None
    nodes: int | None
    chars: int | None
    bytes: int | None
    history_groups: int | None

    def of(self, bound: Bound) -> int | None:
        """The amount for ``bound``."""
        return (self.tokens, self.nodes, self.chars, self.bytes, self.history_groups)[BOUND_ORDER.index(bound)]

    def to_json(self) -> dict[str, int | None]:
        return {
            "tokens": self.tokens,
            "nodes": self.nodes,
            "chars": self.chars,
            "bytes": self.bytes,
            "history_groups": self.history_groups,
        }


@dataclass(frozen=True, slots=True)
class ClosureNeeds:
    """What a node's not-yet-selected dependency closure needs of every bound.

    ``lower_bound`` is true when the selector stopped counting early (once the token
    bound, the first in :data:`BOUND_ORDER`, was exceeded, no later count can change
    which bound failed): each figure is then at least the closure's need.
    """

    amounts: Amounts
    lower_bound: bool

    def to_json(self) -> dict[str, int | bool | None]:
        return {**self.amounts.to_json(), "lower_bound": self.lower_bound}


class HiddenRule(StrEnum):
    """Which part of the role's policy hides a node."""

    CLASS = "class"
    PROVENANCE = "provenance"
    VISIBLE_TO = "visible-to"


@dataclass(frozen=True, slots=True)
class HiddenBy:
    """Why ``role`` does not see a node: its class or provenance value, or the roles it is
    visible to."""

    rule: HiddenRule
    role: str
    value: str | tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"rule": self.rule.value, "role": self.role, "value": value}

    def prose(self) -> str:
        if self.rule is HiddenRule.VISIBLE_TO:
            return f"the node is visible only to roles [{', '.join(self.value)}]"
        return f"role {self.role!r} does not see {self.rule.value} {self.value!r}"


@dataclass(frozen=True, slots=True)
class Explanation:
    """One node's fate, as data.

    ``tokens``/``chars`` are the node's own size (its delta when selected). For an
    omission over a bound: ``bound`` is the first bound, in :data:`BOUND_ORDER`, that the
    node's unselected closure exceeds; ``needs`` what that closure needs (``None`` when
    the node was omitted through a dependency, named by ``blocking``, whose closure can
    never fit ``bound``); ``remaining`` what was left of each bound when it was checked.
    For a hidden node, ``hidden`` names the hidden node (itself, or the one in its closure,
    reached through the dependency ``blocking``) and ``hidden_by`` says why it is hidden.
    """

    node_id: str
    selected: bool
    reason: SelectionReason | OmissionReason
    tokens: int
    chars: int
    root: str | None = None
    """For a selected node, the root whose admission brought it in (itself for a root)."""
    bound: Bound | None = None
    needs: ClosureNeeds | None = None
    remaining: Amounts | None = None
    blocking: str | None = None
    hidden: str | None = None
    hidden_by: HiddenBy | None = None

    @property
    def detail(self) -> str:
        """Why, in words, generated from the fields."""
        reason = self.reason
        if reason is SelectionReason.REQUIRED_ROOT:
            return "required"
        if reason is SelectionReason.OPTIONAL_ROOT:
            return "its whole unselected closure fit"
        if reason is SelectionReason.REQUIRED_DEPENDENCY:
            return f"in the closure of required node {self.root!r}"
        if reason is SelectionReason.OPTIONAL_DEPENDENCY:
            return f"in the closure of optional root {self.root!r}"
        if reason is OmissionReason.NOT_NEEDED:
            return "dependency-required, and no selected node depends on it"
        if reason is OmissionReason.ALTERNATIVE_SELECTED:
            return f"an alternative of the same material, {self.blocking!r}, was selected"
        if reason is OmissionReason.HIDDEN:
            return self.hidden_by.prose() if self.hidden_by else "hidden"
        if reason is OmissionReason.HIDDEN_DEPENDENCY:
            return f"its closure holds hidden node {self.hidden!r} (through dependency {self.blocking!r})" + (
                f": {self.hidden_by.prose()}" if self.hidden_by else ""
            )
        bound = self.bound
        if bound is None:  # pragma: no cover - every bound omission carries its bound
            return reason.value
        if self.needs is None:
            return f"depends on {self.blocking!r}, whose closure cannot fit the {bound.unit} bound"
        least = "at least " if self.needs.lower_bound else ""
        remained = self.remaining.of(bound) if self.remaining else None
        return f"its unselected closure needs {least}{self.needs.amounts.of(bound)} {bound.unit}; {remained} remained"

    def to_json(self) -> dict[str, Any]:
        return {
            "selected": self.selected,
            "reason": self.reason.value,
            "tokens": self.tokens,
            "chars": self.chars,
            "root": self.root,
            "bound": None if self.bound is None else self.bound.value,
            "needs": None if self.needs is None else self.needs.to_json(),
            "remaining": None if self.remaining is None else self.remaining.to_json(),
            "blocking": self.blocking,
            "hidden": self.hidden,
            "hidden_by": None if self.hidden_by is None else self.hidden_by.to_json(),
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True, eq=False)
class SelectionPlan:
    """The deterministic outcome of :func:`lychd_core.graph.select`.

    ``selected`` lists ids in admission order; ``explanations`` holds every node of the
    graph exactly once, in graph order. Plans compare by value: the graph (by digest),
    profile, budget, bounds, selection, accounting and every explanation.
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

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SelectionPlan):
            return NotImplemented
        return (
            self.graph_digest == other.graph_digest
            and (self.profile, self.budget, self.bounds, self.selected, self.accounting)
            == (other.profile, other.budget, other.bounds, other.selected, other.accounting)
            and all(other.explanations[node_id] == e for node_id, e in self.explanations.items())
        )

    def __hash__(self) -> int:
        return hash((self.graph_digest, self.selected))

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
