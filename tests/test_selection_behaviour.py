"""The selection behaviour matrix of the reference text, plus required-material failures."""

from __future__ import annotations

import random
from typing import Any

import pytest
from lychd_roles import StandardRoles, StandardRolesOptions

from lychd_core.digests import canonical_json
from lychd_core.errors import (
    AccountingOverflowError,
    BudgetError,
    RequiredHiddenError,
    RequiredOverBudgetError,
    SelectionError,
)
from lychd_core.graph import MAX_INT, ContextGraph, SelectionBounds, SelectionReason, TokenBudget, select
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import OmissionReason, Provenance, Trust
from tests.support.graphs import EVERYTHING, C, R, budget, history_chain, node, user


def reasons(plan: Any) -> dict[str, str]:
    return {node_id: e.reason.value for node_id, e in plan.explanations.items()}


# --- the behaviour matrix ---------------------------------------------------------------


def test_a_user_instruction_outranks_a_repository_node_with_maximal_priority() -> None:
    graph = ContextGraph([node("repo", 10, priority=MAX_INT, recency=MAX_INT), user("instruction", 10)])
    plan = select(graph, EVERYTHING, budget(10))
    assert plan.selected == ("instruction",)
    assert reasons(plan) == {"repo": "token-budget", "instruction": "optional-root"}


def test_an_optional_root_is_omitted_atomically_and_a_later_smaller_root_is_still_admitted() -> None:
    graph = ContextGraph(
        [
            node("big-root", 5, "big-dep", priority=9),
            node("big-dep", 30, requirement=R.DEPENDENCY_REQUIRED),
            node("small-root", 10, priority=1),
        ]
    )
    plan = select(graph, EVERYTHING, budget(20))
    assert plan.selected == ("small-root",)
    assert plan.explanations["big-root"].reason is OmissionReason.TOKEN_BUDGET
    assert plan.explanations["big-dep"].reason is OmissionReason.NOT_NEEDED
    assert plan.accounting.selected == 10 and plan.accounting.remaining == 10


def test_the_reviewer_never_sees_producer_ancestry() -> None:
    agent = {"provenance": Provenance.AGENT}
    graph = ContextGraph(
        [
            node("spec", 10, provenance=Provenance.APPLICATION, context_class=C.SPECIFICATION),
            node("candidate", 10, **agent, context_class=C.CANDIDATE),
            node("ancestry", 10, **agent, context_class=C.PRODUCER_ANCESTRY),
            node("reasoning", 10, **agent, context_class=C.PRODUCER_REASONING),
            node("rationale", 10, **agent, context_class=C.PRODUCER_RATIONALE),
            node(
                "remembered-rationale",
                10,
                provenance=Provenance.MEMORY,
                trust=Trust.UNTRUSTED,
                context_class=C.MEMORY_EVIDENCE,
            ),
            node("candidate-with-lineage", 10, "ancestry", **agent, context_class=C.CANDIDATE),
            node("history", 10, **agent, context_class=C.HISTORY),
        ]
    )
    policy, options = StandardRoles(), StandardRolesOptions()
    reviewer = select(graph, policy.profile("reviewer", options), budget(1_000))
    assert set(reviewer.selected) == {"spec", "candidate"}
    assert reviewer.explanations["candidate-with-lineage"].reason is OmissionReason.HIDDEN_DEPENDENCY
    for hidden in ("ancestry", "reasoning", "rationale", "remembered-rationale", "history"):
        assert reviewer.explanations[hidden].reason is OmissionReason.HIDDEN
    writer = select(graph, policy.profile("writer", options), budget(1_000))
    assert {"ancestry", "rationale", "candidate-with-lineage"} <= set(writer.selected)
    ancestry = node("ancestry", 10, **agent, context_class=C.PRODUCER_ANCESTRY, requirement=R.REQUIRED)
    required = ContextGraph([ancestry])
    with pytest.raises(RequiredHiddenError, match="producer-ancestry"):
        select(required, policy.profile("reviewer", options), budget(1_000))


# --- required material -------------------------------------------------------------------


def test_required_nodes_come_with_their_whole_closure() -> None:
    graph = ContextGraph(
        [
            node("floor", 5, "base", requirement=R.REQUIRED),
            node("base", 5, "deeper"),
            node("deeper", 5, requirement=R.DEPENDENCY_REQUIRED),
            node("extra", 5),
        ]
    )
    plan = select(graph, EVERYTHING, budget(15))
    assert plan.selected == ("deeper", "base", "floor")
    assert plan.explanations["base"].reason is SelectionReason.REQUIRED_DEPENDENCY
    assert plan.explanations["base"].root == "floor"
    assert plan.explanations["floor"].reason is SelectionReason.REQUIRED_ROOT
    assert plan.explanations["extra"].reason is OmissionReason.TOKEN_BUDGET


def test_a_hidden_required_closure_member_names_the_node_and_the_path() -> None:
    graph = ContextGraph(
        [
            node("floor", 5, "middle", requirement=R.REQUIRED),
            node("middle", 5, "secret"),
            node("secret", 5, visible_to=["writer"]),
        ]
    )
    reviewer = RoleProfile("reviewer", frozenset({C.SOURCE}), frozenset(Provenance), ())
    with pytest.raises(RequiredHiddenError) as caught:
        select(graph, reviewer, budget(100))
    error = caught.value
    assert (error.node_id, error.hidden_id, error.path) == ("floor", "secret", ("floor", "middle", "secret"))
    assert "visible only to roles [writer]" in str(error)


def test_hidden_required_material_is_reported_before_any_budget_problem() -> None:
    hidden = node("hidden", 1, requirement=R.REQUIRED, context_class=C.HISTORY)
    graph = ContextGraph([node("huge", 500, requirement=R.REQUIRED), hidden])
    profile = RoleProfile("reviewer", frozenset({C.SOURCE}), frozenset(Provenance), ())
    with pytest.raises(RequiredHiddenError):
        select(graph, profile, budget(10))


def test_required_overflow_reports_node_required_and_available_tokens() -> None:
    graph = ContextGraph(
        [
            user("query", 30, requirement=R.REQUIRED),
            node("floor", 40, "shared", requirement=R.REQUIRED),
            node("shared", 20),
            node("optional", 1),
        ]
    )
    with pytest.raises(RequiredOverBudgetError) as caught:
        select(graph, EVERYTHING, budget(80))
    error = caught.value
    assert isinstance(error, SelectionError)
    assert (error.node_id, error.bound) == ("floor", OmissionReason.TOKEN_BUDGET)
    assert (error.required_tokens, error.available_tokens) == (90, 80)
    assert (error.required, error.available) == (90, 80)


@pytest.mark.parametrize(
    ("bounds", "reason", "required", "available"),
    [
        (SelectionBounds(max_chars=15), OmissionReason.CHARACTER_LIMIT, 20, 15),
        (SelectionBounds(max_bytes=15), OmissionReason.BYTE_LIMIT, 20, 15),
        (SelectionBounds(max_nodes=1), OmissionReason.NODE_LIMIT, 2, 1),
    ],
)
def test_required_material_over_any_bound_fails_whole(
    bounds: SelectionBounds, reason: OmissionReason, required: int, available: int
) -> None:
    graph = ContextGraph([node("a", 10, requirement=R.REQUIRED), node("b", 10, requirement=R.REQUIRED)])
    with pytest.raises(RequiredOverBudgetError) as caught:
        select(graph, EVERYTHING, budget(100), bounds)
    assert (caught.value.bound, caught.value.required, caught.value.available) == (reason, required, available)
    assert caught.value.required_tokens == 20


def test_required_history_beyond_the_turn_window_fails() -> None:
    graph = ContextGraph([node("h", 10, context_class=C.HISTORY, requirement=R.REQUIRED)])
    with pytest.raises(RequiredOverBudgetError) as caught:
        select(graph, EVERYTHING, budget(100), SelectionBounds(max_history_groups=0))
    assert caught.value.bound is OmissionReason.OUTSIDE_TURN_WINDOW


def test_estimates_near_2_63_overflow_as_a_typed_budget_error() -> None:
    half = 2**62
    graph = ContextGraph([node("a", 1, requirement=R.REQUIRED), node("b", 1, requirement=R.REQUIRED)])
    graph = ContextGraph([node(n.id, 1, requirement=R.REQUIRED, token_estimate=half) for n in graph])
    with pytest.raises(AccountingOverflowError) as caught:
        select(graph, EVERYTHING, TokenBudget(window=MAX_INT, reserved_output=0))
    assert isinstance(caught.value, BudgetError)


def test_a_single_estimate_of_2_63_minus_1_fits_the_largest_window_exactly() -> None:
    graph = ContextGraph([node("all", 1, requirement=R.REQUIRED, token_estimate=MAX_INT), node("more", 1)])
    plan = select(graph, EVERYTHING, TokenBudget(window=MAX_INT, reserved_output=0))
    assert plan.selected == ("all",)
    assert (plan.accounting.selected, plan.accounting.remaining) == (MAX_INT, 0)
    assert plan.explanations["more"].reason is OmissionReason.TOKEN_BUDGET


def test_optional_closures_summing_past_2_63_are_simply_omitted() -> None:
    graph = ContextGraph(
        [
            node("small-root", 1, "huge", priority=5),
            node("huge", 1, token_estimate=MAX_INT, requirement=R.DEPENDENCY_REQUIRED),
            node("fits", 1),
        ]
    )
    plan = select(graph, EVERYTHING, TokenBudget(window=MAX_INT, reserved_output=1))
    assert plan.selected == ("fits",)
    assert plan.explanations["small-root"].reason is OmissionReason.TOKEN_BUDGET
    assert plan.explanations["small-root"].detail == (
        f"its unselected closure needs at least {MAX_INT} tokens; {MAX_INT - 1} remained"
    )


# --- optional material -------------------------------------------------------------------


def test_a_dependency_keeps_the_first_reason_that_selected_it() -> None:
    graph = ContextGraph([node("root", 5, "dep", priority=5), node("dep", 5, priority=1)])
    plan = select(graph, EVERYTHING, budget(100))
    assert plan.selected == ("dep", "root")
    assert plan.explanations["dep"].reason is SelectionReason.OPTIONAL_DEPENDENCY
    assert plan.explanations["dep"].root == "root"
    assert "'root'" in plan.explanations["dep"].detail


def test_hidden_and_hidden_dependency_reasons() -> None:
    graph = ContextGraph(
        [
            node("history", 5, context_class=C.HISTORY),
            node("external", 5, provenance=Provenance.EXTERNAL, trust=Trust.UNTRUSTED),
            node("private", 5, visible_to=["writer"]),
            node("uses-history", 5, "history"),
            node("uses-user", 5, "uses-history"),
        ]
    )
    profile = RoleProfile("fixer", frozenset({C.SOURCE}), frozenset({Provenance.REPOSITORY}), ())
    plan = select(graph, profile, budget(100))
    assert plan.selected == ()
    explanations = plan.explanations
    assert "class 'history'" in explanations["history"].detail
    assert "provenance 'external'" in explanations["external"].detail
    assert "visible only to roles [writer]" in explanations["private"].detail
    assert explanations["uses-user"].reason is OmissionReason.HIDDEN_DEPENDENCY
    assert "'uses-history'" in explanations["uses-user"].detail


@pytest.mark.parametrize(
    ("bounds", "reason"),
    [
        (SelectionBounds(max_nodes=2), OmissionReason.NODE_LIMIT),
        (SelectionBounds(max_chars=25), OmissionReason.CHARACTER_LIMIT),
        (SelectionBounds(max_bytes=25), OmissionReason.BYTE_LIMIT),
    ],
)
def test_each_extra_bound_omits_with_its_reason(bounds: SelectionBounds, reason: OmissionReason) -> None:
    graph = ContextGraph([node(name, 10, priority=p) for name, p in (("a", 3), ("b", 2), ("c", 1))])
    plan = select(graph, EVERYTHING, budget(1_000), bounds)
    assert plan.selected == ("a", "b")
    assert plan.explanations["c"].reason is reason


@pytest.mark.parametrize(
    ("bounds", "reason"),
    [
        (SelectionBounds(max_nodes=1), OmissionReason.NODE_LIMIT),
        (SelectionBounds(max_chars=25), OmissionReason.CHARACTER_LIMIT),
        (SelectionBounds(max_bytes=25), OmissionReason.BYTE_LIMIT),
        (SelectionBounds(max_history_groups=0), OmissionReason.OUTSIDE_TURN_WINDOW),
    ],
)
def test_a_dependency_over_a_bound_omits_its_root(bounds: SelectionBounds, reason: OmissionReason) -> None:
    dependency = node("dep", 30, context_class=C.HISTORY, requirement=R.DEPENDENCY_REQUIRED)
    graph = ContextGraph([node("root", 1, "dep", priority=1), dependency])
    plan = select(graph, EVERYTHING, budget(1_000), bounds)
    assert plan.selected == ()
    assert plan.explanations["root"].reason is reason


def test_history_keeps_a_contiguous_newest_suffix_within_tokens_and_turn_window() -> None:
    graph = ContextGraph([user("query", 5, requirement=R.REQUIRED), *history_chain(50)])
    plan = select(graph, EVERYTHING, budget(75))
    assert plan.selected == ("query", *(f"history:{i:06d}" for i in range(49, 42, -1)))
    assert plan.explanations["history:000042"].reason is OmissionReason.TOKEN_BUDGET
    assert plan.explanations["history:000041"].reason is OmissionReason.TOKEN_BUDGET
    windowed = select(graph, EVERYTHING, budget(75), SelectionBounds(max_history_groups=3))
    assert windowed.selected == ("query", "history:000049", "history:000048", "history:000047")
    # 40 tokens are left: groups 46-43 fail the turn window alone; from group 42 on the whole
    # unselected closure (42-46: 50 tokens) is over the token budget too, which comes first.
    for group in (46, 43):
        assert windowed.explanations[f"history:{group:06d}"].reason is OmissionReason.OUTSIDE_TURN_WINDOW
    for group in (42, 0):
        assert windowed.explanations[f"history:{group:06d}"].reason is OmissionReason.TOKEN_BUDGET
    assert select(graph, EVERYTHING, budget(75), SelectionBounds(max_history_groups=0)).selected == ("query",)


def test_the_plan_is_identical_for_any_member_order() -> None:
    nodes = [
        user("query", 5, requirement=R.REQUIRED),
        node("a", 10, "b", priority=2),
        node("b", 10, priority=2),
        node("c", 15, "a"),
        *history_chain(6, 4),
    ]
    shuffled = nodes[:]
    random.Random(3).shuffle(shuffled)
    first = select(ContextGraph(nodes), EVERYTHING, budget(45), SelectionBounds(max_history_groups=2))
    second = select(ContextGraph(shuffled), EVERYTHING, budget(45), SelectionBounds(max_history_groups=2))
    assert canonical_json(first.to_json()) == canonical_json(second.to_json())
    assert first.digest == second.digest
    assert first.selected == second.selected


def test_the_plan_json_carries_everything_needed_to_audit_it() -> None:
    graph = ContextGraph([user("query", 5, requirement=R.REQUIRED), node("a", 10), node("b", 100)])
    plan = select(graph, EVERYTHING, budget(50), SelectionBounds(max_nodes=10))
    data = plan.to_json()
    assert data["format"] == "lychd.selection-plan" and data["version"] == 2
    assert data["graph"] == graph.digest
    assert data["profile"]["role"] == "writer"
    assert data["budget"]["usable"] == 50 and data["bounds"]["max_nodes"] == 10
    assert data["selected"] == ["query", "a"]
    assert set(data["explanations"]) == {"query", "a", "b"}
    assert data["explanations"]["b"]["reason"] == "token-budget"
    assert data["accounting"] == {
        "capacity": 150,
        "reserved_output": 100,
        "protocol_overhead": 0,
        "usable": 50,
        "selected": 15,
        "remaining": 35,
        "selected_chars": 15,
        "selected_bytes": 15,
        "selected_nodes": 2,
        "selected_history_groups": 0,
    }
    canonical_json(data)
    assert plan.omitted == ("b",) and plan.is_selected("a") and not plan.is_selected("b")


@pytest.mark.parametrize(
    "args",
    [
        ("graph", EVERYTHING, budget(10), None),
        (ContextGraph([]), "writer", budget(10), None),
        (ContextGraph([]), EVERYTHING, 10, None),
        (ContextGraph([]), EVERYTHING, budget(10), {"max_nodes": 1}),
    ],
)
def test_select_refuses_the_wrong_argument_types(args: tuple[Any, ...]) -> None:
    with pytest.raises(SelectionError):
        select(*args)
