"""ContextGraph validation: duplicates, missing dependencies, cycles, scale, order independence."""

from __future__ import annotations

import itertools
import random
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.errors import DuplicateNodeError, GraphCycleError, GraphError, MissingDependencyError, UnknownNodeError
from lychd_core.graph import MAX_INT, ContextGraph, ContextNode, precedence_key
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement, Trust
from tests.support.graphs import record_ordered_tiers


def node(node_id: str, *deps: str, **overrides: Any) -> ContextNode:
    fields: dict[str, Any] = {
        "id": node_id,
        "content": f"content of {node_id}",
        "provenance": Provenance.REPOSITORY,
        "authority": Authority.NON_AUTHORITATIVE,
        "trust": Trust.TRUSTED,
        "context_class": ContextClass.SOURCE,
        "requirement": Requirement.OPTIONAL,
        "token_estimate": 10,
        "dependencies": tuple(sorted(deps)),
    }
    fields.update(overrides)
    return ContextNode.create(**fields)


def test_duplicate_ids_are_refused() -> None:
    with pytest.raises(DuplicateNodeError, match="'a'") as caught:
        ContextGraph([node("a"), node("b"), node("a")])
    assert caught.value.node_id == "a"
    assert isinstance(caught.value, GraphError)


def test_missing_dependencies_are_refused() -> None:
    with pytest.raises(MissingDependencyError, match="'ghost'") as caught:
        ContextGraph([node("a", "ghost")])
    assert (caught.value.node_id, caught.value.missing) == ("a", "ghost")


def test_a_cycle_is_refused_and_named() -> None:
    with pytest.raises(GraphCycleError) as caught:
        ContextGraph([node("a", "b"), node("b", "c"), node("c", "a"), node("d", "a"), node("e")])
    assert caught.value.cycle == ("a", "b", "c", "a")
    assert "a -> b -> c -> a" in str(caught.value)


def test_a_two_node_cycle_behind_a_tail_is_named_without_the_tail() -> None:
    with pytest.raises(GraphCycleError) as caught:
        ContextGraph([node("a", "m"), node("m", "n"), node("n", "m")])
    assert caught.value.cycle == ("m", "n", "m")


def test_members_must_be_nodes() -> None:
    with pytest.raises(GraphError, match="not a ContextNode"):
        ContextGraph([node("a"), "b"])  # type: ignore[list-item]


def test_an_empty_graph_is_valid() -> None:
    graph = ContextGraph([])
    assert len(graph) == 0 and graph.topological_order() == ()


def test_reading_a_graph() -> None:
    graph = ContextGraph([node("c", "a", "b"), node("a"), node("b", "a")])
    assert len(graph) == 3 and "a" in graph and "z" not in graph
    assert graph["b"].dependencies == ("a",)
    assert [n.id for n in graph] == ["c", "a", "b"]
    assert graph.closure("c") == ("a", "b", "c")
    assert graph.dependents("a") == ("b", "c")
    order = graph.topological_order()
    assert order.index("a") < order.index("b") < order.index("c")
    with pytest.raises(UnknownNodeError, match="'z'"):
        graph.node("z")


def long_chain(n: int) -> list[ContextNode]:
    # Each node depends on the next one: node 0 has the deepest closure.
    return [node(f"n{i:06d}", *([f"n{i + 1:06d}"] if i + 1 < n else [])) for i in range(n)]


def test_a_100k_chain_needs_no_recursion() -> None:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        graph = ContextGraph(long_chain(100_000))
        assert len(graph.closure("n000000")) == 100_000
        assert graph.topological_order()[0] == "n099999"
    finally:
        sys.setrecursionlimit(limit)


def test_a_100k_cycle_is_found_without_recursion() -> None:
    nodes = long_chain(100_000)
    nodes[-1] = node("n099999", "n000000")
    with pytest.raises(GraphCycleError) as caught:
        ContextGraph(nodes)
    assert len(caught.value.cycle) == 100_001


def test_the_digest_ignores_member_order_but_not_content() -> None:
    nodes = [node("a"), node("b", "a"), node("c", "a", "b")]
    shuffled = nodes[:]
    random.Random(7).shuffle(shuffled)
    assert ContextGraph(nodes).digest == ContextGraph(shuffled).digest
    changed = [node("a", content="changed"), *nodes[1:]]
    assert ContextGraph(changed).digest != ContextGraph(nodes).digest


def test_precedence_order_follows_the_documented_tuple() -> None:
    user = node("u", provenance=Provenance.USER, authority=Authority.USER_INSTRUCTION, context_class=ContextClass.QUERY)
    required = node("r", requirement=Requirement.REQUIRED)
    high = node("p", priority=5)
    recent = node("q", recency=9)
    tie_b, tie_a = node("tb"), node("ta")
    graph = ContextGraph([tie_b, recent, high, required, tie_a, user])
    assert [graph.nodes[i].id for i in graph.precedence_order()] == ["u", "r", "p", "q", "ta", "tb"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(Requirement),
            st.sampled_from([-MAX_INT - 1, -1, 0, 1, MAX_INT]) | st.integers(-3, 3),
            st.sampled_from([0, 1, MAX_INT]) | st.integers(0, 3),
            st.sampled_from(
                [
                    (Provenance.REPOSITORY, Authority.NON_AUTHORITATIVE),
                    (Provenance.USER, Authority.USER_INSTRUCTION),
                    (Provenance.APPLICATION, Authority.ACCEPTANCE_SPECIFICATION),
                    (Provenance.APPLICATION, Authority.APPLICATION_POLICY),
                    (Provenance.SYSTEM, Authority.SYSTEM_POLICY),
                ]
            ),
        ),
        max_size=30,
    ),
    st.booleans(),
)
def test_precedence_order_equals_sorting_by_the_key(
    rows: list[tuple[Requirement, int, int, tuple[Provenance, Authority]]], made_in_order: bool
) -> None:
    nodes = []
    for i, (requirement, priority, recency, (provenance, authority)) in enumerate(rows):
        # made_in_order: recency grows with position, as when nodes are made oldest first
        extra: dict[str, Any] = {
            "requirement": requirement,
            "priority": priority,
            "recency": i if made_in_order else recency,
        }
        extra.update(provenance=provenance, authority=authority)
        nodes.append(node(f"id{(i * 7919) % 31:02d}-{i}", **extra))
    expected = sorted(range(len(nodes)), key=lambda i: precedence_key(nodes[i]))
    optional = [i for i in expected if nodes[i].requirement is Requirement.OPTIONAL]
    graph = ContextGraph(nodes)
    lazily = graph.optional_candidates()
    assert list(itertools.islice(lazily, 3)) == optional[:3]  # a prefix, without the rest being ordered
    assert list(graph.precedence_order()) == expected
    assert list(graph.optional_order()) == optional
    assert list(graph.optional_candidates()) == optional  # now from the cache


def test_many_tiers_and_repeated_recencies_order_by_the_key() -> None:
    rng = random.Random(5)
    nodes = [
        node(f"n{rng.randrange(10_000):05d}-{i}", priority=rng.randrange(60), recency=rng.randrange(4))
        for i in range(400)
    ]
    graph = ContextGraph(nodes)
    index = graph.arrays.precedence
    assert len(index.tiers) == 60 and not index.recency_unique and not index.recency_ascending
    assert list(graph.optional_order()) == sorted(range(len(nodes)), key=lambda i: precedence_key(nodes[i]))


def test_only_the_tiers_reached_are_ordered(monkeypatch: pytest.MonkeyPatch) -> None:
    ordered = record_ordered_tiers(monkeypatch)
    nodes = [node(f"n{i:03d}", priority=i % 3, recency=(i * 37) % 101) for i in range(90)]
    candidates = ContextGraph(nodes).optional_candidates()
    first = next(candidates)
    assert nodes[first].priority == 2 and nodes[first].recency == max(n.recency for n in nodes if n.priority == 2)
    assert ordered == [30]  # one tier of 30 ordered; the other two untouched
