"""The core's operation table: a capability view outside it is an error for every role."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.errors import RolePolicyError
from lychd_core.roles import (
    NAMED_ROLES,
    OTHER_ROLE,
    PRODUCER_CLASSES,
    ROLE_OPERATIONS,
    RoleProfile,
    allowed_operations,
)
from lychd_core.vocabulary import ContextClass, Operation, Provenance

EVERY_ROLE = [*NAMED_ROLES, "some-unnamed-role"]
O = Operation  # noqa: E741


def profile(role: str, view: tuple[Operation, ...] = (), **overrides: Any) -> RoleProfile:
    fields: dict[str, Any] = {
        "role": role,
        "visible_classes": frozenset(ContextClass) - PRODUCER_CLASSES,
        "visible_provenances": frozenset(Provenance),
        "capability_view": view,
    }
    fields.update(overrides)
    return RoleProfile(**fields)


def test_the_table_names_the_five_roles_and_a_restricted_rest() -> None:
    assert NAMED_ROLES == ("writer", "reviewer", "fixer", "evaluator", "evolution-agent")
    assert ROLE_OPERATIONS[OTHER_ROLE] == frozenset({O.READ_CONTEXT})
    assert allowed_operations("anyone-else") == frozenset({O.READ_CONTEXT})
    assert ROLE_OPERATIONS["reviewer"] == frozenset({O.READ_CONTEXT, O.RECORD_FINDING})


@pytest.mark.parametrize("role", EVERY_ROLE)
def test_the_whole_allowed_view_is_accepted(role: str) -> None:
    view = tuple(sorted(allowed_operations(role)))
    assert profile(role, view).capability_view == view


@pytest.mark.parametrize(
    ("role", "operation"),
    [(role, op) for role in EVERY_ROLE for op in Operation if op not in allowed_operations(role)],
)
def test_an_operation_outside_the_table_is_refused(role: str, operation: Operation) -> None:
    view = tuple(sorted({*allowed_operations(role), operation}))
    with pytest.raises(RolePolicyError, match=operation.value):
        profile(role, view)


@pytest.mark.parametrize("role", EVERY_ROLE)
def test_every_role_is_refused_something(role: str) -> None:
    assert set(Operation) - allowed_operations(role), "a role allowed everything would make the table pointless"


def test_the_view_is_ordered_and_duplicate_free() -> None:
    with pytest.raises(RolePolicyError, match="sorted"):
        profile("writer", (O.RUN_CHECKS, O.READ_CONTEXT))
    with pytest.raises(RolePolicyError, match="duplicate"):
        profile("writer", (O.READ_CONTEXT, O.READ_CONTEXT))


def test_the_reviewer_may_never_see_producer_material() -> None:
    for cls in PRODUCER_CLASSES:
        with pytest.raises(RolePolicyError, match="fresh"):
            profile("reviewer", visible_classes=frozenset({ContextClass.SOURCE, cls}))
    assert profile("writer", visible_classes=frozenset(ContextClass)).visible_classes == frozenset(ContextClass)


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"role": ""}, "role name"),
        ({"role": " writer"}, "role name"),
        ({"role": OTHER_ROLE}, "role name"),
        ({"role": 3}, "role name"),
        ({"visible_classes": {ContextClass.SOURCE}}, "frozenset"),
        ({"visible_classes": frozenset({"source"})}, "ContextClass"),
        ({"visible_provenances": frozenset({"user"})}, "Provenance"),
        ({"capability_view": [O.READ_CONTEXT]}, "tuple"),
        ({"capability_view": ("read-context",)}, "Operation"),
    ],
)
def test_malformed_profiles_are_role_policy_errors(overrides: dict[str, Any], match: str) -> None:
    fields = {"role": "writer", **overrides}
    with pytest.raises(RolePolicyError, match=match):
        profile(**fields)


def test_sees_and_restricted() -> None:
    guest = profile(
        "guest", visible_classes=frozenset({ContextClass.QUERY}), visible_provenances=frozenset({Provenance.USER})
    )
    assert guest.restricted and not profile("writer").restricted
    assert guest.sees(ContextClass.QUERY, Provenance.USER)
    assert not guest.sees(ContextClass.QUERY, Provenance.TOOL)
    assert not guest.sees(ContextClass.SOURCE, Provenance.USER)
    assert guest.to_json() == {
        "role": "guest",
        "visible_classes": ["query"],
        "visible_provenances": ["user"],
        "capability_view": [],
    }
