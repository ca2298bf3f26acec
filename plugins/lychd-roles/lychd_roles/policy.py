"""``roles.standard`` revision 1: what each role sees, and its read-only capability view.

A policy grants nothing. It filters context classes and provenances, and lists the
operation classes the core's table already allows; ``RoleProfile`` refuses anything
more. The reviewer's and evaluator's context is fresh: no producer ancestry, hidden
reasoning or rationale, no memory, history or compaction of the producer's run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from lychd_core.errors import RolePolicyError
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import TRUST_CEILING, ContextClass, Operation, Provenance, Trust, parse_token

C = ContextClass
P = Provenance
O = Operation  # noqa: E741 - short alias keeps the table readable


@dataclass(frozen=True, slots=True)
class RoleView:
    """One role's visible classes and provenances and its ordered capability view."""

    classes: frozenset[ContextClass]
    provenances: frozenset[Provenance]
    operations: tuple[Operation, ...]


_ALL_PROVENANCES = frozenset(Provenance)
_PRODUCER_VIEW = frozenset(ContextClass) - {C.PRODUCER_REASONING}
"""Producers see their own lineage and rationale, never a model's hidden reasoning."""

_FRESH_VIEW = frozenset(
    {
        C.POLICY,
        C.INSTRUCTION,
        C.SPECIFICATION,
        C.CANDIDATE,
        C.SOURCE,
        C.GATE_EVIDENCE,
        C.FINDING,
        C.ENVIRONMENT,
        C.TOOL_OUTPUT,
        C.CONTINUATION,
        C.QUERY,
    }
)
"""Specification, exact candidate, relevant source, gate evidence and prior findings."""

_FRESH_PROVENANCES = _ALL_PROVENANCES - {P.MEMORY, P.DERIVED_COMPACTION}
"""No memory-derived rationale and no summaries of the producer's run."""

PROFILES: Mapping[str, RoleView] = MappingProxyType(
    {
        "writer": RoleView(_PRODUCER_VIEW, _ALL_PROVENANCES, (O.PROPOSE_CHANGE, O.READ_CONTEXT, O.RUN_CHECKS)),
        "reviewer": RoleView(_FRESH_VIEW, _FRESH_PROVENANCES, (O.READ_CONTEXT, O.RECORD_FINDING)),
        "fixer": RoleView(
            _PRODUCER_VIEW,
            _ALL_PROVENANCES,
            (O.PROPOSE_CHANGE, O.READ_CONTEXT, O.RESOLVE_FINDING, O.RUN_CHECKS),
        ),
        "evaluator": RoleView(_FRESH_VIEW, _FRESH_PROVENANCES, (O.READ_CONTEXT, O.RECORD_EVALUATION, O.RUN_CHECKS)),
        "evolution-agent": RoleView(_PRODUCER_VIEW, _ALL_PROVENANCES, (O.PROPOSE_HARNESS_CHANGE, O.READ_CONTEXT)),
    }
)

RESTRICTED = RoleView(
    frozenset({C.POLICY, C.INSTRUCTION, C.SPECIFICATION, C.ENVIRONMENT, C.CONTINUATION, C.QUERY}),
    frozenset({P.SYSTEM, P.APPLICATION, P.USER, P.TOOL}),
    (O.READ_CONTEXT,),
)
"""Every role not named above: policy, instructions, specification and its own exchange."""


class StandardRolesOptions(BaseModel):
    """Options narrow every profile further; none can widen one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hidden_classes: tuple[ContextClass, ...] = Field(
        default=(),
        description="Context classes hidden from every role, on top of each profile.",
        examples=[["memory-evidence"]],
    )
    hidden_provenances: tuple[Provenance, ...] = Field(
        default=(),
        description="Provenances hidden from every role, on top of each profile.",
        examples=[["external"]],
    )
    restricted_roles: tuple[str, ...] = Field(
        default=(),
        description="Roles beyond the five named ones that this deployment uses; each gets the restricted "
        "profile. Any other role name is refused (a likely typo).",
        examples=[["release-bot"]],
    )
    minimum_trust: Literal["untrusted", "constrained", "trusted"] = Field(
        default="untrusted",
        description="Hide every provenance whose trust ceiling is below this level.",
        examples=["constrained"],
    )

    @field_validator("restricted_roles")
    @classmethod
    def _unnamed(cls, roles: tuple[str, ...]) -> tuple[str, ...]:
        named = sorted(set(roles) & set(PROFILES))
        if named:
            raise ValueError(f"{', '.join(named)} has its own profile; list only roles the policy does not name")
        if any(not role or role != role.strip() for role in roles):
            raise ValueError(f"role names must be non-empty without surrounding spaces, got {list(roles)!r}")
        return tuple(sorted(set(roles)))


def below(minimum: str) -> frozenset[Provenance]:
    """Provenances whose trust ceiling is below ``minimum`` (a node never exceeds its ceiling)."""
    level = parse_token(Trust, minimum)
    if level is None:
        raise RolePolicyError(f"minimum_trust must be untrusted, constrained or trusted, not {minimum!r}")
    return frozenset(p for p, ceiling in TRUST_CEILING.items() if ceiling < level)


class StandardRoles:
    """The first-party role policy."""

    name: ClassVar[str] = "roles.standard"
    revision: ClassVar[int] = 1
    options_model: ClassVar[type[BaseModel]] = StandardRolesOptions
    roles: ClassVar[tuple[str, ...]] = tuple(PROFILES)

    def profile(self, role: str, options: BaseModel) -> RoleProfile:
        """The profile of ``role``: its own from :data:`PROFILES`, :data:`RESTRICTED` for a role the
        options list in ``restricted_roles``; any other name is refused, naming the known roles."""
        if not isinstance(options, StandardRolesOptions):
            raise RolePolicyError(
                f"{self.name} needs StandardRolesOptions, got {type(options).__name__}; "
                "validate options with the policy's options_model"
            )
        if not isinstance(role, str):
            raise RolePolicyError(f"a role name must be a string, got {type(role).__name__}")
        view = PROFILES.get(role) or (RESTRICTED if role in options.restricted_roles else None)
        if view is None:  # the restricted profile is for roles the deployment names, never for a typo
            restricted = ", ".join(options.restricted_roles) or "none"
            raise RolePolicyError(
                f"unknown role {role!r}; known roles: {', '.join(sorted(PROFILES))} (restricted: {restricted}); "
                "typo? To give another role the restricted profile, list it in [role_policy.options] restricted_roles"
            )
        return RoleProfile(
            role=role,
            visible_classes=view.classes - frozenset(options.hidden_classes),
            visible_provenances=view.provenances - frozenset(options.hidden_provenances) - below(options.minimum_trust),
            capability_view=view.operations,
        )
