"""Role context profiles and the core-owned table of operations per role.

Policies grant nothing: a profile only filters what a role sees and lists, read-only,
the operation classes the core's table already allows that role.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from lychd_core.errors import RolePolicyError
from lychd_core.vocabulary import ContextClass, Operation, Provenance

REVIEWER = "reviewer"
"""The role whose context is always fresh."""

OTHER_ROLE = "*"
"""Table key for every role not named explicitly: the restricted profile."""

ROLE_OPERATIONS: Mapping[str, frozenset[Operation]] = MappingProxyType(
    {
        "writer": frozenset({Operation.READ_CONTEXT, Operation.PROPOSE_CHANGE, Operation.RUN_CHECKS}),
        REVIEWER: frozenset({Operation.READ_CONTEXT, Operation.RECORD_FINDING}),
        "fixer": frozenset(
            {Operation.READ_CONTEXT, Operation.PROPOSE_CHANGE, Operation.RUN_CHECKS, Operation.RESOLVE_FINDING}
        ),
        "evaluator": frozenset({Operation.READ_CONTEXT, Operation.RUN_CHECKS, Operation.RECORD_EVALUATION}),
        "evolution-agent": frozenset({Operation.READ_CONTEXT, Operation.PROPOSE_HARNESS_CHANGE}),
        OTHER_ROLE: frozenset({Operation.READ_CONTEXT}),
    }
)

PRODUCER_CLASSES = frozenset(
    {ContextClass.PRODUCER_ANCESTRY, ContextClass.PRODUCER_REASONING, ContextClass.PRODUCER_RATIONALE}
)
"""Classes a reviewer must never see: its context is always fresh."""


NAMED_ROLES: tuple[str, ...] = tuple(role for role in ROLE_OPERATIONS if role != OTHER_ROLE)
"""Roles the core's table names explicitly; every other role is restricted."""


def allowed_operations(role: str) -> frozenset[Operation]:
    """The operations the core allows ``role`` ever to have."""
    return ROLE_OPERATIONS.get(role, ROLE_OPERATIONS[OTHER_ROLE])


def _check_members(field: str, role: str, value: object, kind: type, member: type) -> None:
    if not isinstance(value, kind) or not all(isinstance(item, member) for item in value):  # type: ignore[attr-defined]
        raise RolePolicyError(
            f"{field} of role {role!r} must be a {kind.__name__} of {member.__name__} members, got {value!r}"
        )


@dataclass(frozen=True, slots=True)
class RoleProfile:
    """What one role may see, and the read-only ordered view of its operation classes.

    Construction refuses a capability view outside the core's table, so no plugin can
    widen what a role may do; a reviewer may never see producer material.
    """

    role: str
    visible_classes: frozenset[ContextClass]
    visible_provenances: frozenset[Provenance]
    capability_view: tuple[Operation, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.role, str) or not self.role or self.role != self.role.strip() or self.role == OTHER_ROLE:
            raise RolePolicyError(
                f"a role profile needs a role name (non-empty, no surrounding spaces, not {OTHER_ROLE!r}), "
                f"got {self.role!r}"
            )
        _check_members("visible_classes", self.role, self.visible_classes, frozenset, ContextClass)
        _check_members("visible_provenances", self.role, self.visible_provenances, frozenset, Provenance)
        _check_members("capability_view", self.role, self.capability_view, tuple, Operation)
        allowed = allowed_operations(self.role)
        extra = [op.value for op in self.capability_view if op not in allowed]
        if extra:
            raise RolePolicyError(
                f"role {self.role!r} may never have {', '.join(extra)}; "
                f"the core allows only {', '.join(sorted(op.value for op in allowed))}"
            )
        if list(self.capability_view) != sorted(set(self.capability_view)):
            raise RolePolicyError(
                f"capability view of {self.role!r} must be sorted by name and duplicate-free, "
                f"got {[op.value for op in self.capability_view]}"
            )
        if self.role == REVIEWER and self.visible_classes & PRODUCER_CLASSES:
            leaked = sorted(c.value for c in self.visible_classes & PRODUCER_CLASSES)
            raise RolePolicyError(f"reviewer context must be fresh; it may not see {', '.join(leaked)}")

    def sees(self, context_class: ContextClass, provenance: Provenance) -> bool:
        """Whether a node of this class and provenance is visible to the role."""
        return context_class in self.visible_classes and provenance in self.visible_provenances

    @property
    def restricted(self) -> bool:
        """Whether the core's table does not name this role (it gets the restricted operations)."""
        return self.role not in ROLE_OPERATIONS

    def to_json(self) -> dict[str, object]:
        return {
            "role": self.role,
            "visible_classes": sorted(c.value for c in self.visible_classes),
            "visible_provenances": sorted(p.value for p in self.visible_provenances),
            "capability_view": [op.value for op in self.capability_view],
        }
