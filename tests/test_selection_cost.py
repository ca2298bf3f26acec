"""What selection does not do: walks it skips, doom it spreads lazily, roots it never reaches."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.graph import ContextGraph, SelectionBounds, select
from lychd_core.graph import selection as selection_module
from lychd_core.vocabulary import OmissionReason
from tests.support.graphs import EVERYTHING, C, R, budget, history_chain, node, record_ordered_tiers


def count_probes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Patch the selector to record the root of every walk it starts."""
    roots: list[int] = []
    original = selection_module._Selector._probe

    def counting(self: Any, root: int) -> Any:
        roots.append(root)
        return original(self, root)

    monkeypatch.setattr(selection_module._Selector, "_probe", counting)
    return roots


def test_a_long_history_chain_is_probed_linearly(monkeypatch: pytest.MonkeyPatch) -> None:
    probes = count_probes(monkeypatch)
    groups = 20_000
    tiny = node("tiny", 1, priority=-1)  # keeps a 1-token node fitting, so the loop runs to the end
    graph = ContextGraph([*history_chain(groups), tiny])
    plan = select(graph, EVERYTHING, budget(10 * groups // 2 + 5))
    assert len(plan.selected) == groups // 2 + 1 and plan.selected[-1] == "tiny"
    assert len(probes) <= groups // 2 + 1  # newest half admitted one by one; the rest fail without a walk
    assert plan.explanations["history:000000"].reason is OmissionReason.TOKEN_BUDGET


def test_a_doomed_dependency_dooms_its_dependents_with_the_same_reason() -> None:
    graph = ContextGraph(
        [
            node("huge", 50, priority=9),
            node("a", 1, "huge", priority=1),
            node("b", 1, "a", priority=1),
            node("spare", 1, priority=-1),
        ]
    )
    plan = select(graph, EVERYTHING, budget(20))
    assert plan.selected == ("spare",)
    assert plan.explanations["huge"].detail == "its unselected closure needs 50 tokens; 20 remained"
    assert plan.explanations["a"].detail == "depends on 'huge', whose closure cannot fit the tokens bound"
    assert plan.explanations["b"].detail == "depends on 'a', whose closure cannot fit the tokens bound"
    assert plan.explanations["b"].reason is OmissionReason.TOKEN_BUDGET


def test_a_walk_that_meets_a_doomed_node_dooms_its_whole_path(monkeypatch: pytest.MonkeyPatch) -> None:
    probes = count_probes(monkeypatch)
    graph = ContextGraph(
        [
            node("huge", 50, priority=9),
            node("r", 1, "a", priority=5),
            node("a", 1, "b", priority=1),
            node("b", 1, "huge", priority=1),
            node("spare", 1, priority=-1),
        ]
    )
    plan = select(graph, EVERYTHING, budget(20))
    assert plan.selected == ("spare",)
    why = {node_id: plan.explanations[node_id].detail for node_id in ("r", "a", "b")}
    assert why == {
        "r": "depends on 'a', whose closure cannot fit the tokens bound",
        "a": "depends on 'b', whose closure cannot fit the tokens bound",
        "b": "depends on 'huge', whose closure cannot fit the tokens bound",
    }
    position = graph.position
    assert probes == [position("r"), position("spare")]  # a and b were doomed by r's walk


@pytest.mark.parametrize("newest_first", [True, False])
def test_a_long_chain_over_a_doomed_node_is_not_walked_once_per_node(
    monkeypatch: pytest.MonkeyPatch, newest_first: bool
) -> None:
    probes = count_probes(monkeypatch)
    length = 5_000
    chain = [
        node(f"c{i:05d}", 1, f"c{i - 1:05d}" if i else "huge", recency=i if newest_first else length - i)
        for i in range(length)
    ]
    graph = ContextGraph([node("huge", 50, priority=9), *chain, node("spare", 1, priority=-1)])
    plan = select(graph, EVERYTHING, budget(20))
    assert plan.selected == ("spare",)
    if newest_first:
        # Each walk stops after 20 nodes; its binary search dooms the path it took.
        assert len(probes) < length // 3
    else:
        assert len(probes) == length + 1  # each link's walk stops at once, at its doomed dependency
    for i in range(1, length):
        assert plan.explanations[f"c{i:05d}"].reason is OmissionReason.TOKEN_BUDGET
    assert plan.explanations["c00000"].detail == "depends on 'huge', whose closure cannot fit the tokens bound"


def test_selection_stops_once_no_single_node_fits_and_explains_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    sorted_tiers = record_ordered_tiers(monkeypatch)
    probes = count_probes(monkeypatch)
    low = [node(f"low{i:03d}", 5 + i % 7, priority=1, recency=i) for i in range(300)]
    graph = ContextGraph([node("first", 8, priority=9), node("second", 4, "first", priority=9, recency=1), *low])
    plan = select(graph, EVERYTHING, budget(14))
    assert plan.selected == ("first", "second")  # 2 tokens remain; no node is under 4
    assert sorted_tiers == [2]  # the priority-1 tier was never ordered
    assert len(probes) == 1  # "second" brought "first" in with it
    explained = plan.explanations["low007"]
    assert explained.reason is OmissionReason.TOKEN_BUDGET
    assert explained.detail == "its unselected closure needs 5 tokens; 2 remained"
    assert plan.accounting.remaining == 2


@pytest.mark.parametrize(
    ("bounds", "reason", "detail"),
    [
        (SelectionBounds(max_nodes=1), OmissionReason.NODE_LIMIT, "needs 1 nodes; 0 remained"),
        (SelectionBounds(max_history_groups=1), OmissionReason.OUTSIDE_TURN_WINDOW, "1 history groups; 0 remained"),
        (SelectionBounds(max_chars=12), OmissionReason.CHARACTER_LIMIT, "needs 10 characters; 2 remained"),
    ],
)
def test_any_spent_bound_ends_the_loop(bounds: SelectionBounds, reason: OmissionReason, detail: str) -> None:
    groups = [node(f"g{i}", 10, context_class=C.HISTORY, recency=i) for i in range(5)]
    plan = select(ContextGraph(groups), EVERYTHING, budget(1_000), bounds)
    assert plan.selected == ("g4",)
    assert plan.explanations["g0"].reason is reason
    assert plan.explanations["g0"].detail.endswith(detail)


def test_required_material_that_spends_the_budget_leaves_every_optional_root_explained() -> None:
    graph = ContextGraph([node("must", 10, requirement=R.REQUIRED), node("may", 1)])
    plan = select(graph, EVERYTHING, budget(10))
    assert plan.selected == ("must",)
    assert plan.explanations["may"].detail == "its unselected closure needs 1 tokens; 0 remained"
