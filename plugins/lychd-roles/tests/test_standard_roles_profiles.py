"""What each standard role sees, its capability view, options, and registration."""

from __future__ import annotations

import pytest
from lychd_roles import PROFILES, RESTRICTED, StandardRoles, StandardRolesOptions
from pydantic import BaseModel, ValidationError

from lychd_core.errors import RolePolicyError
from lychd_core.families import PluginFamily
from lychd_core.registry import get_registry
from lychd_core.roles import NAMED_ROLES, PRODUCER_CLASSES, allowed_operations
from lychd_core.vocabulary import ContextClass, Operation, Provenance

C, P = ContextClass, Provenance
POLICY = StandardRoles()
DEFAULTS = StandardRolesOptions(restricted_roles=("guest", "release-bot"))


def test_name_revision_and_roles() -> None:
    assert (POLICY.name, POLICY.revision) == ("roles.standard", 1)
    assert POLICY.roles == NAMED_ROLES


def test_it_is_registered_through_its_entry_point() -> None:
    entry = get_registry().resolve(PluginFamily.ROLE_POLICY, "roles.standard", 1)
    assert entry.distribution == "lychd-roles"
    assert isinstance(entry.obj, StandardRoles)


@pytest.mark.parametrize("role", [*NAMED_ROLES, "guest"])
def test_each_view_lists_exactly_what_the_core_allows(role: str) -> None:
    profile = POLICY.profile(role, DEFAULTS)
    assert profile.role == role
    assert profile.capability_view == tuple(sorted(allowed_operations(role)))


@pytest.mark.parametrize("role", ["reviewer", "evaluator"])
def test_independent_roles_get_fresh_context(role: str) -> None:
    profile = POLICY.profile(role, DEFAULTS)
    assert not profile.visible_classes & PRODUCER_CLASSES
    assert not profile.visible_classes & {C.HISTORY, C.MEMORY_EVIDENCE, C.COMPACTION}
    assert not profile.visible_provenances & {P.MEMORY, P.DERIVED_COMPACTION}
    # ... and everything an independent read needs
    assert {C.SPECIFICATION, C.CANDIDATE, C.SOURCE, C.GATE_EVIDENCE, C.FINDING} <= profile.visible_classes


@pytest.mark.parametrize("role", ["writer", "fixer", "evolution-agent"])
def test_producers_see_their_lineage_but_never_hidden_reasoning(role: str) -> None:
    profile = POLICY.profile(role, DEFAULTS)
    assert {C.PRODUCER_ANCESTRY, C.PRODUCER_RATIONALE, C.HISTORY, C.MEMORY_EVIDENCE} <= profile.visible_classes
    assert C.PRODUCER_REASONING not in profile.visible_classes
    assert profile.visible_provenances == frozenset(Provenance)


def test_a_role_nobody_declared_is_refused_naming_the_known_roles() -> None:
    with pytest.raises(RolePolicyError) as refused:
        POLICY.profile("writter", StandardRolesOptions())
    assert str(refused.value) == (
        "unknown role 'writter'; known roles: evaluator, evolution-agent, fixer, reviewer, writer "
        "(restricted: none); typo? To give another role the restricted profile, list it in "
        "[role_policy.options] restricted_roles"
    )
    with pytest.raises(RolePolicyError, match=r"unknown role 'guests'.*\(restricted: guest, release-bot\)"):
        POLICY.profile("guests", DEFAULTS)


@pytest.mark.parametrize(
    ("roles", "problem"),
    [(["writer"], "writer has its own profile"), ([""], "non-empty"), ([" bot"], "surrounding spaces")],
)
def test_restricted_roles_list_only_roles_the_policy_does_not_name(roles: list[str], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        StandardRolesOptions.model_validate({"restricted_roles": roles})
    assert StandardRolesOptions(restricted_roles=("b", "a", "b")).restricted_roles == ("a", "b")


def test_other_roles_are_restricted() -> None:
    profile = POLICY.profile("release-bot", DEFAULTS)
    assert profile.restricted
    assert profile.visible_classes == RESTRICTED.classes
    assert profile.visible_provenances == {P.SYSTEM, P.APPLICATION, P.USER, P.TOOL}
    assert profile.capability_view == (Operation.READ_CONTEXT,)
    assert set(PROFILES) == set(NAMED_ROLES)


def test_options_only_narrow() -> None:
    options = StandardRolesOptions.model_validate(
        {"hidden_classes": ["memory-evidence"], "hidden_provenances": ["external"], "restricted_roles": ["guest"]}
    )
    for role in [*NAMED_ROLES, "guest"]:
        narrowed, default = POLICY.profile(role, options), POLICY.profile(role, DEFAULTS)
        assert narrowed.visible_classes == default.visible_classes - {C.MEMORY_EVIDENCE}
        assert narrowed.visible_provenances == default.visible_provenances - {P.EXTERNAL}
        assert narrowed.capability_view == default.capability_view


@pytest.mark.parametrize(
    "options",
    [{"hidden_classes": ["no-such-class"]}, {"hidden_provenances": ["martian"]}, {"grant": ["propose-change"]}],
)
def test_options_are_strict(options: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        StandardRolesOptions.model_validate(options)


def test_foreign_options_and_bad_role_names_are_role_policy_errors() -> None:
    class Other(BaseModel):
        pass

    with pytest.raises(RolePolicyError, match="StandardRolesOptions"):
        POLICY.profile("writer", Other())
    with pytest.raises(RolePolicyError):
        POLICY.profile("", DEFAULTS)
    with pytest.raises(RolePolicyError):
        POLICY.profile(7, DEFAULTS)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("minimum", "hidden"),
    [
        ("untrusted", set()),
        ("constrained", {Provenance.EXTERNAL, Provenance.MEMORY}),
        ("trusted", {Provenance.EXTERNAL, Provenance.MEMORY, Provenance.TOOL, Provenance.AGENT, Provenance.REVIEW}),
    ],
)
def test_minimum_trust_hides_provenances_below_it(minimum: str, hidden: set[Provenance]) -> None:
    policy = StandardRoles()
    profile = policy.profile("writer", StandardRolesOptions(minimum_trust=minimum))
    assert frozenset(Provenance) - profile.visible_provenances == hidden


def test_minimum_trust_is_one_of_three_levels() -> None:
    with pytest.raises(ValueError):
        StandardRolesOptions.model_validate({"minimum_trust": "mostly"})
