"""Explanations are data: the typed fields a program acts on, and prose made from them."""

from __future__ import annotations

import pytest

from lychd_core.graph import (
    BOUND_ORDER,
    Amounts,
    Bound,
    ClosureNeeds,
    ContextGraph,
    Explanation,
    HiddenBy,
    HiddenRule,
    SelectionBounds,
    SelectionReason,
    select,
)
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import ContextClass, OmissionReason, Provenance, Trust
from tests.support.graphs import EVERYTHING, C, R, budget, node


def test_the_fixed_order_is_tokens_nodes_characters_bytes_then_the_turn_window() -> None:
    assert BOUND_ORDER == (Bound.TOKENS, Bound.NODES, Bound.CHARACTERS, Bound.BYTES, Bound.TURN_WINDOW)
    assert [bound.reason for bound in BOUND_ORDER] == [
        OmissionReason.TOKEN_BUDGET,
        OmissionReason.NODE_LIMIT,
        OmissionReason.CHARACTER_LIMIT,
        OmissionReason.BYTE_LIMIT,
        OmissionReason.OUTSIDE_TURN_WINDOW,
    ]


# A root of 2 tokens and its dependency of 3: 5 tokens, 2 nodes, 10 characters and 20 bytes
# ("é" is two bytes), 2 history groups; each bound below is set just under the closure or not.
CLOSURE = {"tokens": 5, "nodes": 2, "chars": 10, "bytes": 20, "history": 2}


def closure_graph() -> ContextGraph:
    return ContextGraph(
        [
            node("root", 2, "dep", content="é" * 5, context_class=C.HISTORY),
            node("dep", 3, content="é" * 5, context_class=C.HISTORY, requirement=R.DEPENDENCY_REQUIRED),
        ]
    )


@pytest.mark.parametrize(
    ("over", "first"),
    [
        ({"tokens", "nodes", "chars", "bytes", "history"}, Bound.TOKENS),
        ({"nodes", "chars", "bytes", "history"}, Bound.NODES),
        ({"chars", "bytes", "history"}, Bound.CHARACTERS),
        ({"bytes", "history"}, Bound.BYTES),
        ({"history"}, Bound.TURN_WINDOW),
        ({"bytes", "tokens"}, Bound.TOKENS),
        ({"chars", "nodes"}, Bound.NODES),
    ],
)
def test_the_first_failing_bound_follows_the_fixed_order_on_the_closure(over: set[str], first: Bound) -> None:
    def limit(name: str) -> int:
        return CLOSURE[name] - 1 if name in over else CLOSURE[name]

    bounds = SelectionBounds(
        max_nodes=limit("nodes"),
        max_chars=limit("chars"),
        max_bytes=limit("bytes"),
        max_history_groups=limit("history"),
    )
    plan = select(closure_graph(), EVERYTHING, budget(limit("tokens")), bounds)
    assert plan.selected == ()
    explained = plan.explanations["root"]
    assert (explained.bound, explained.reason) == (first, first.reason)
    assert explained.blocking is None and explained.needs is not None and explained.remaining is not None
    # Each node alone fits every bound, so the walk counted the whole closure before it stopped.
    assert explained.needs.amounts == Amounts(tokens=5, nodes=2, chars=10, bytes=20, history_groups=2)
    assert explained.remaining == Amounts(
        tokens=limit("tokens"),
        nodes=limit("nodes"),
        chars=limit("chars"),
        bytes=limit("bytes"),
        history_groups=limit("history"),
    )
    remained = explained.remaining.of(first)
    assert explained.detail.endswith(f"{explained.needs.amounts.of(first)} {first.unit}; {remained} remained")


def test_a_node_without_dependencies_has_exact_needs_and_unset_bounds_are_null() -> None:
    plan = select(ContextGraph([node("big", 50), node("spare", 1, priority=-1)]), EVERYTHING, budget(20))
    explained = plan.explanations["big"]
    assert explained.needs == ClosureNeeds(Amounts(50, 1, 50, 50, 0), lower_bound=False)
    assert explained.remaining == Amounts(tokens=20, nodes=None, chars=None, bytes=None, history_groups=None)
    assert explained.detail == "its unselected closure needs 50 tokens; 20 remained"


def test_a_walk_that_stops_early_marks_its_needs_a_lower_bound() -> None:
    chain = [node(f"c{i}", 10, *([f"c{i + 1}"] if i < 9 else []), requirement=R.DEPENDENCY_REQUIRED) for i in range(10)]
    graph = ContextGraph([node("root", 1, "c0"), *chain])
    explained = select(graph, EVERYTHING, budget(25)).explanations["root"]
    assert explained.bound is Bound.TOKENS and explained.needs is not None
    assert explained.needs.lower_bound
    assert 25 < explained.needs.amounts.tokens <= 101  # type: ignore[operator]
    assert explained.detail.startswith("its unselected closure needs at least ")


def test_a_node_behind_a_doomed_dependency_names_it() -> None:
    graph = ContextGraph([node("huge", 50, priority=9), node("a", 1, "huge"), node("spare", 1, priority=-1)])
    explained = select(graph, EVERYTHING, budget(20)).explanations["a"]
    assert (explained.bound, explained.blocking, explained.needs, explained.remaining) == (
        Bound.TOKENS,
        "huge",
        None,
        None,
    )


def test_hidden_fields_name_the_hidden_node_the_rule_and_the_path() -> None:
    graph = ContextGraph(
        [
            node("history", 5, context_class=C.HISTORY),
            node("external", 5, provenance=Provenance.EXTERNAL, trust=Trust.UNTRUSTED),
            node("private", 5, visible_to=["writer", "evaluator"]),
            node("uses-history", 5, "history"),
            node("uses-user", 5, "uses-history"),
        ]
    )
    profile = RoleProfile("fixer", frozenset({ContextClass.SOURCE}), frozenset({Provenance.REPOSITORY}), ())
    e = select(graph, profile, budget(100)).explanations
    assert e["history"].hidden_by == HiddenBy(HiddenRule.CLASS, "fixer", "history")
    assert e["history"].hidden == "history"
    assert e["external"].hidden_by == HiddenBy(HiddenRule.PROVENANCE, "fixer", "external")
    assert e["private"].hidden_by == HiddenBy(HiddenRule.VISIBLE_TO, "fixer", ("evaluator", "writer"))
    deep = e["uses-user"]
    assert (deep.reason, deep.blocking, deep.hidden) == (OmissionReason.HIDDEN_DEPENDENCY, "uses-history", "history")
    assert deep.hidden_by == HiddenBy(HiddenRule.CLASS, "fixer", "history")
    assert deep.to_json()["hidden_by"] == {"rule": "class", "role": "fixer", "value": "history"}


def test_the_json_carries_every_field_and_the_prose_comes_from_them() -> None:
    made = Explanation(
        "n",
        False,
        OmissionReason.CHARACTER_LIMIT,
        3,
        9,
        bound=Bound.CHARACTERS,
        needs=ClosureNeeds(Amounts(3, 2, 120, 130, 0), lower_bound=True),
        remaining=Amounts(900, None, 100, None, None),
    )
    assert made.detail == "its unselected closure needs at least 120 characters; 100 remained"
    assert made.to_json() == {
        "selected": False,
        "reason": "character-limit",
        "tokens": 3,
        "chars": 9,
        "root": None,
        "bound": "characters",
        "needs": {"tokens": 3, "nodes": 2, "chars": 120, "bytes": 130, "history_groups": 0, "lower_bound": True},
        "remaining": {"tokens": 900, "nodes": None, "chars": 100, "bytes": None, "history_groups": None},
        "blocking": None,
        "hidden": None,
        "hidden_by": None,
        "detail": made.detail,
    }
    chosen = Explanation("d", True, SelectionReason.OPTIONAL_DEPENDENCY, 1, 1, root="r")
    assert chosen.detail == "in the closure of optional root 'r'"
    assert chosen.to_json()["bound"] is None and chosen.to_json()["needs"] is None


def test_the_reported_bound_is_the_first_the_whole_closure_exceeds() -> None:
    """Issue 26: the root alone over the character cap, root and dependency over the token
    budget: the omission named the character limit, which comes later in the fixed order."""
    graph = ContextGraph(
        [
            node("root", 5, "dep", content="x" * 50),
            node("dep", 8, content="y" * 8, requirement=R.DEPENDENCY_REQUIRED),
            node("spare", 1, priority=-1),
        ]
    )
    plan = select(graph, EVERYTHING, budget(10), SelectionBounds(max_chars=40))
    explained = plan.explanations["root"]
    assert (explained.bound, explained.reason) == (Bound.TOKENS, OmissionReason.TOKEN_BUDGET)
    assert explained.needs is not None and explained.needs.amounts.tokens == 13
    # And for a root the selector never reached (nothing more could fit when it stopped).
    stopped = select(ContextGraph([*graph, node("filler", 10, priority=9)]), EVERYTHING, budget(10))
    assert stopped.explanations["root"].reason is OmissionReason.TOKEN_BUDGET
