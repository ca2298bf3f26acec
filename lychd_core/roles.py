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

OTHER_ROLE = "*"
"""Table key for every role not named explicitly: the restricted profile."""

ROLE_OPERATIONS: Mapping[str, frozenset[Operation]] = MappingProxyType(
    {
        "writer": frozenset({Operation.READ_CONTEXT, Operation.PROPOSE_CHANGE, Operation.RUN_CHECKS}),
        "reviewer": frozenset({Operation.READ_CONTEXT, Operation.RECORD_FINDING}),
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


def allowed_operations(role: str) -> frozenset[Operation]:
    """The operations the core allows ``role`` ever to have."""
    return ROLE_OPERATIONS.get(role, ROLE_OPERATIONS[OTHER_ROLE])


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
        if not self.role:
            raise RolePolicyError("a role profile needs a non-empty role name")
        allowed = allowed_operations(self.role)
        extra = [op.value for op in self.capability_view if op not in allowed]
        if extra:
            raise RolePolicyError(
                f"role {self.role!r} may never have {', '.join(extra)}; "
                f"the core allows only {', '.join(sorted(op.value for op in allowed))}"
            )
        if list(self.capability_view) != sorted(set(self.capability_view)):
            raise RolePolicyError(f"capability view of {self.role!r} must be sorted and duplicate-free")
        if self.role == "reviewer" and self.visible_classes & PRODUCER_CLASSES:
            leaked = sorted(c.value for c in self.visible_classes & PRODUCER_CLASSES)
            raise RolePolicyError(f"reviewer context must be fresh; it may not see {', '.join(leaked)}")

    def sees(self, context_class: ContextClass, provenance: Provenance) -> bool:
        """Whether a node of this class and provenance is visible to the role."""
        return context_class in self.visible_classes and provenance in self.visible_provenances

    def to_json(self) -> dict[str, object]:
        return {
            "role": self.role,
            "visible_classes": sorted(c.value for c in self.visible_classes),
            "visible_provenances": sorted(p.value for p in self.visible_provenances),
            "capability_view": [op.value for op in self.capability_view],
        }
