"""Run cache, grant-bound environment snapshots, leases and detachment."""

from __future__ import annotations

import pytest

from lychd_core.assembly import ContextOrchestrator, Grant
from lychd_core.blocks import Block, Layer
from lychd_core.config import default_config
from lychd_core.errors import ContextBudgetExceededError, LeaseError
from tests.support.conversations import conversation, turn


def new() -> ContextOrchestrator:
    return ContextOrchestrator(default_config())


def env_block(orchestrator: ContextOrchestrator, run_id: str) -> Block:
    (block,) = orchestrator.get(run_id).blocks(Layer.ENVIRONMENT)
    return block


def test_get_returns_the_retained_assembly_until_release() -> None:
    orch = new()
    assembled = orch.assemble(run_id="r1", session_id="s", query="q")
    assert orch.get("r1") is assembled
    orch.release("r1")
    with pytest.raises(LeaseError):
        orch.get("r1")
    orch.release("r1")  # a second release is a no-op, as in the reference
    orch.release("never-assembled")
    assert orch.active_runs() == frozenset()


def test_reassembly_under_a_new_grant_replaces_the_environment() -> None:
    orch = new()
    orch.assemble(run_id="r", session_id="s", query="q")  # initial field, before any grant
    before = env_block(orch, "r")
    grant = Grant(grant_id="g-1", capability_key="local-7b", warm_capability_keys=("b", "a"))
    orch.assemble(run_id="r", session_id="s", query="q", grant=grant)
    after = env_block(orch, "r")
    assert after.content_hash != before.content_hash
    assert after.text == (
        "Environment:\n- granted capability: local-7b\n- warm capabilities: a, b\n- active capabilities: none"
    )
    facts = orch.get("r").environment
    assert facts == {"capability": "local-7b", "warm": ["a", "b"], "active": []}
    assert orch.get("r").to_json()["environment"] == facts
    assert len(orch.environments) == 1, "the pre-grant snapshot was released on rebinding"


def test_reassembly_within_the_same_grant_is_byte_stable() -> None:
    orch = new()
    grant = Grant(grant_id="g-1", capability_key="m")
    first = orch.assemble(run_id="r", session_id="s", query="q", grant=grant, history=conversation(3))
    second = orch.assemble(run_id="r", session_id="s", query="q", grant=grant, history=conversation(3))
    assert first.to_json() == second.to_json()


def test_fresh_grant_id_gives_a_fresh_snapshot_for_the_same_capability() -> None:
    orch = new()
    orch.assemble(run_id="a", session_id="s", query="q", grant=Grant(grant_id="g-1", capability_key="m"))
    orch.assemble(run_id="b", session_id="s", query="q", grant=Grant(grant_id="g-2", capability_key="m"))
    assert env_block(orch, "a").key != env_block(orch, "b").key
    assert len(orch.environments) == 2


def test_same_key_is_shared_and_one_release_never_evicts_another_lease() -> None:
    orch = new()
    grant = Grant(grant_id="g-1", capability_key="m")
    orch.assemble(run_id="a", session_id="s", query="q", grant=grant)
    orch.assemble(run_id="b", session_id="s", query="q", grant=grant)
    assert env_block(orch, "a") is env_block(orch, "b"), "exact same-key snapshots are shared"
    orch.release("a")
    assert len(orch.environments) == 1 and env_block(orch, "b").key.endswith("@g-1")
    orch.release("b")
    assert len(orch.environments) == 0


def test_sharing_and_release_stay_bounded_across_1000_epochs() -> None:
    orch = new()
    for epoch in range(1_000):
        grant = Grant(grant_id=f"g-{epoch}", capability_key="m")
        orch.assemble(run_id=f"run-{epoch}-a", session_id="s", query="q", grant=grant)
        orch.assemble(run_id=f"run-{epoch}-b", session_id="s", query="q", grant=grant)
        if epoch:
            orch.release(f"run-{epoch - 1}-a")
            orch.release(f"run-{epoch - 1}-b")
        assert len(orch.environments) <= 2
    orch.release("run-999-a")
    orch.release("run-999-b")
    assert len(orch.environments) == 0 and orch.active_runs() == frozenset()


def test_failed_assembly_retains_nothing() -> None:
    orch = new()
    grant = Grant(grant_id="g-1", capability_key="m", max_context=100)
    good = orch.assemble(run_id="r", session_id="s", query="q", grant=Grant(grant_id="g-0", capability_key="m"))
    with pytest.raises(ContextBudgetExceededError):
        orch.assemble(run_id="r", session_id="s", query="q" * 1_000, grant=grant, reserve_output=10)
    with pytest.raises(ContextBudgetExceededError):
        orch.assemble(run_id="other", session_id="s", query="q" * 1_000, grant=grant, reserve_output=10)
    assert orch.get("r") is good
    assert orch.active_runs() == frozenset({"r"}) and len(orch.environments) == 1


def test_caller_edits_never_reach_the_retained_assembly() -> None:
    orch = new()
    history = conversation(3)
    continuation = turn(9)
    assembled = orch.assemble(run_id="r", session_id="s", query="q", history=history, continuation=continuation)
    snapshot = assembled.model_history()
    history[-1]["parts"][0]["content"] = "edited by the caller"
    continuation[0]["parts"][0]["content"] = "edited too"
    assembled.history[-1]["parts"][0]["content"] = "edited through a read"
    assembled.model_history()[0]["parts"].clear()
    assert orch.get("r").model_history() == snapshot


def test_a_shared_snapshot_reports_the_facts_the_model_sees() -> None:
    """Issue 26: with a snapshot shared, ``environment`` reported the caller's current grant,
    not the environment block in the floor."""
    orch = new()
    orch.assemble(run_id="a", session_id="s", query="q", grant=Grant(grant_id="g-1", capability_key="m"))
    later = Grant(grant_id="g-1", capability_key="m", warm_capability_keys=("w",), active_capability_keys=("x",))
    second = orch.assemble(run_id="b", session_id="s", query="q", grant=later)
    assert env_block(orch, "b") is env_block(orch, "a"), "same key: the snapshot is shared"
    assert "warm capabilities: none" in env_block(orch, "b").text
    assert second.environment == {"capability": "m", "warm": [], "active": []}
    assert second.to_json()["environment"] == second.environment


def test_facts_read_from_a_shared_snapshot_are_the_callers_own() -> None:
    """Changing the ``environment`` an assembly reports from a shared snapshot leaves the
    snapshot's facts, and so the next assembly's, as they were."""
    orch = new()
    grant = Grant(grant_id="g-1", capability_key="m", warm_capability_keys=("w",))
    orch.assemble(run_id="a", session_id="s", query="q", grant=grant)
    second = orch.assemble(run_id="b", session_id="s", query="q", grant=grant)
    assert env_block(orch, "b") is env_block(orch, "a"), "same key: the snapshot is shared"
    second.environment["warm"].append("edited")
    second.environment["capability"] = "edited"
    third = orch.assemble(run_id="c", session_id="s", query="q", grant=grant)
    assert third.environment == {"capability": "m", "warm": ["w"], "active": []}
