"""Plans, indexes and assembled contexts compare by value, so callers and tests can compare them."""

from __future__ import annotations

import pytest

from lychd_core.assembly import ContextOrchestrator, Grant
from lychd_core.config import Governors
from lychd_core.errors import ConfigError, ContextBudgetExceededError
from lychd_core.graph import ContextGraph, SelectionBounds, select
from lychd_core.memory import MemoryIndex, MemoryQuery, MemoryScope, forget, retrieve
from tests.support.conversations import conversation
from tests.support.graphs import EVERYTHING, budget, history_chain, node
from tests.support.memories import memory_record


def test_selection_plans_compare_by_value() -> None:
    nodes = [node("a", 10, "b"), node("b", 10), node("c", 30), *history_chain(4)]
    plan = select(ContextGraph(nodes), EVERYTHING, budget(45))
    again = select(ContextGraph(list(reversed(nodes))), EVERYTHING, budget(45))
    assert plan is not again and plan == again and hash(plan) == hash(again)
    assert plan != select(ContextGraph(nodes), EVERYTHING, budget(44))
    assert plan != select(ContextGraph(nodes), EVERYTHING, budget(45), SelectionBounds(max_nodes=9))
    assert plan != select(ContextGraph([*nodes, node("d", 1)]), EVERYTHING, budget(45))
    assert plan != plan.to_json()


def test_memory_indexes_and_retrieval_plans_compare_by_value() -> None:
    records = [memory_record(memory_id=f"m{i}", features={"python": 100 * (i + 1)}) for i in range(4)]
    index = MemoryIndex.build(records)
    assert index == MemoryIndex.build(list(reversed(records))) and hash(index) == hash(MemoryIndex.build(records))
    stone = forget(records[0], "wrong", 5)
    assert index != MemoryIndex.build(records, [stone])
    query = MemoryQuery(scope=MemoryScope(project="p"), now=10, features=["python"])
    plan = retrieve(index, query)
    assert plan == retrieve(MemoryIndex.build(records), query) == retrieve(records, query)
    assert plan != retrieve(index, MemoryQuery(scope=MemoryScope(project="p"), now=10, limit=1))
    # Same ranking and view, but a different input (a superseded older revision) is explained differently.
    older = memory_record(memory_id="m0", revision=1)
    newer = memory_record(memory_id="m0", revision=2, observed=2)
    assert retrieve([older, newer], query) != retrieve([newer], query)


def test_assembled_contexts_compare_by_value() -> None:
    def assemble(query: str) -> object:
        orchestrator = ContextOrchestrator()
        return orchestrator.assemble(run_id="r", session_id="s", query=query, history=conversation(6))

    assert assemble("q") == assemble("q")
    assert assemble("q") != assemble("another q")


def test_a_small_window_works_without_a_configuration_file() -> None:
    grant = Grant(grant_id="g", capability_key="tiny", max_context=1_024)
    with pytest.raises(ContextBudgetExceededError):  # the default output reserve is 4,096
        ContextOrchestrator().assemble(run_id="r", session_id="s", query="q", grant=grant)
    small = ContextOrchestrator(reserve_output=256, governors={"turn_window": 3})
    assembled = small.assemble(run_id="r", session_id="s", query="q", grant=grant, history=conversation(10))
    assert (assembled.bounds.window, assembled.bounds.reserve_output, assembled.bounds.turn_window) == (1_024, 256, 3)
    assert assembled.plan.budget.usable == 1_024 - 256
    assert assembled.bounds.char_cap == 3 * 1_024
    unbound = ContextOrchestrator(window=1_024, reserve_output=256, governors=Governors(char_cap=2_000))
    assert unbound.assemble(run_id="r", session_id="s", query="q").bounds.char_cap == 2_000
    assert unbound.config.assembly.window == 1_024


@pytest.mark.parametrize(
    "arguments",
    [{"window": 0}, {"reserve_output": -1}, {"governors": {"turn_window": "8"}}, {"governors": {"unknown": 1}}],
)
def test_bad_orchestrator_arguments_are_refused_like_a_bad_file(arguments: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="orchestrator arguments"):
        ContextOrchestrator(**arguments)  # type: ignore[arg-type]
