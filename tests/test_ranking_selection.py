"""Relevance and exclusive groups in the graph and the selector."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.errors import GraphError
from lychd_core.graph import (
    ContextGraph,
    ContextNode,
    SelectionBounds,
    TokenBudget,
    graph_from_json,
    graph_to_json,
    precedence_key,
    select,
)
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import Authority, ContextClass, OmissionReason, Provenance, Requirement, Trust

WRITER = RoleProfile("writer", frozenset(ContextClass), frozenset(Provenance), ())


def node(
    node_id: str,
    chars: int,
    *,
    relevance: int = 0,
    group: str | None = None,
    requirement: Requirement = Requirement.OPTIONAL,
    dependencies: tuple[str, ...] = (),
) -> ContextNode:
    return ContextNode.create(
        id=node_id,
        content="x" * chars,
        provenance=Provenance.REPOSITORY,
        authority=Authority.NON_AUTHORITATIVE,
        trust=Trust.TRUSTED,
        context_class=ContextClass.SOURCE,
        requirement=requirement,
        token_estimate=1,
        relevance=relevance,
        exclusive_group=group,
        dependencies=dependencies,
    )


def plan_for(nodes: list[ContextNode], max_chars: int) -> tuple[tuple[str, ...], dict[str, OmissionReason]]:
    plan = select(
        ContextGraph(nodes), WRITER, TokenBudget(window=10_000, reserved_output=0), SelectionBounds(max_chars=max_chars)
    )
    omitted = {e.node_id: e.reason for e in plan.explanations.values() if not e.selected}  # type: ignore[misc]
    return plan.selected, omitted  # type: ignore[return-value]


def test_relevance_orders_optional_roots_ahead_of_recency_and_id() -> None:
    nodes = [node("a", 10), node("b", 10, relevance=5), node("c", 10, relevance=9)]
    selected, omitted = plan_for(nodes, 20)
    assert selected == ("c", "b")
    assert omitted == {"a": OmissionReason.CHARACTER_LIMIT}


def test_the_finest_alternative_that_fits_is_selected_and_the_others_say_why() -> None:
    nodes = [
        node("f#full", 100, relevance=9, group="f"),
        node("f#signatures", 40, relevance=8, group="f"),
        node("f#names", 10, relevance=7, group="f"),
    ]
    selected, omitted = plan_for(nodes, 50)
    assert selected == ("f#signatures",)
    assert omitted == {"f#full": OmissionReason.CHARACTER_LIMIT, "f#names": OmissionReason.ALTERNATIVE_SELECTED}


def test_nothing_may_depend_on_an_alternative() -> None:
    with pytest.raises(GraphError, match="alternatives may have no dependents"):
        ContextGraph([node("f#full", 5, group="f"), node("g", 5, dependencies=("f#full",))])


def test_a_required_node_cannot_be_an_alternative() -> None:
    with pytest.raises(GraphError, match="only optional nodes"):
        node("r", 5, group="f", requirement=Requirement.REQUIRED)


@pytest.mark.parametrize("bad", [-1, 2**31, 1.5, True])
def test_relevance_must_be_a_bounded_integer(bad: object) -> None:
    with pytest.raises(GraphError, match="relevance"):
        node("a", 5, relevance=bad)  # type: ignore[arg-type]


def test_unranked_graphs_keep_their_digest_and_json() -> None:
    plain = ContextGraph([node("a", 5)])
    assert "relevance" not in graph_to_json(plain)["nodes"][0]
    ranked = ContextGraph([node("a", 5, relevance=3, group="g")])
    assert ranked.digest != plain.digest
    again = graph_from_json(graph_to_json(ranked))
    assert again.digest == ranked.digest and again.node("a").exclusive_group == "g"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), min_size=1, max_size=30))
def test_optional_order_is_the_precedence_key_order(values: list[tuple[int, int]]) -> None:
    nodes = [node(f"n{i:02d}", 3, relevance=r) for i, (r, _) in enumerate(values)]
    graph = ContextGraph(nodes)
    expected = sorted(range(len(nodes)), key=lambda i: precedence_key(nodes[i]))
    assert list(graph.optional_order()) == expected
