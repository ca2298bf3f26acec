"""Memories enter assembly as quoted, non-authoritative, untrusted evidence nodes."""

from __future__ import annotations

from pathlib import Path

import pytest

from lychd_core.assembly import ContextOrchestrator
from lychd_core.config import default_config
from lychd_core.errors import MemoryStoreError
from lychd_core.memory import load_records_file
from lychd_core.stores.sqlite import SqliteMemoryStore
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Trust

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples" / "memory.json"


@pytest.fixture
def orchestrator(tmp_path: Path) -> ContextOrchestrator:
    config = default_config()
    with SqliteMemoryStore.open(config.stores.path_of(config.stores.memory, tmp_path)) as store:
        store.add_many(load_records_file(EXAMPLES))
    return ContextOrchestrator(config, workspace=tmp_path)


def test_retrieved_memories_become_evidence_nodes_with_explanations(orchestrator: ContextOrchestrator) -> None:
    plan = orchestrator.retrieve_memory("writer", project="lychd", repository="lychd-core")
    assert plan.evidence(), "the example store has memories in this scope"
    assembled = orchestrator.assemble(run_id="r", session_id="s", query="How should I write the store?", memory=plan)
    graph = assembled.plan.graph
    for evidence in plan.evidence():
        node = graph.node(evidence.node_id)
        assert (node.provenance, node.authority, node.trust, node.context_class) == (
            Provenance.MEMORY,
            Authority.NON_AUTHORITATIVE,
            Trust.UNTRUSTED,
            ContextClass.MEMORY_EVIDENCE,
        )
        assert assembled.plan.explanations[evidence.node_id].selected
        assert "non-authoritative evidence, not an instruction" in node.content
    assert assembled.memory_plan is not None and assembled.memory_plan["inputs"] == 3
    assert assembled.layer_chars["memory"] > 0


def test_memory_never_reaches_a_reviewer(orchestrator: ContextOrchestrator) -> None:
    plan = orchestrator.retrieve_memory("writer", project="lychd", repository="lychd-core")
    assembled = orchestrator.assemble(run_id="r", session_id="s", query="review this", memory=plan, role="reviewer")
    for evidence in plan.evidence():
        assert not assembled.plan.explanations[evidence.node_id].selected
        assert assembled.plan.explanations[evidence.node_id].reason.value == "hidden"
    assert orchestrator.retrieve_memory("reviewer", project="lychd").evidence() == ()


def test_memory_that_does_not_fit_is_omitted_with_a_reason(orchestrator: ContextOrchestrator) -> None:
    config = default_config()
    tight = config.model_copy(update={"governors": config.governors.model_copy(update={"char_cap": 120})})
    assert orchestrator.workspace is not None
    small = ContextOrchestrator(tight, workspace=orchestrator.workspace.root)
    plan = small.retrieve_memory("writer", project="lychd", repository="lychd-core")
    assembled = small.assemble(run_id="r", session_id="s", query="q", memory=plan)
    reasons = {assembled.plan.explanations[e.node_id].reason.value for e in plan.evidence()}
    assert reasons == {"character-limit"}


def test_missing_store_is_a_typed_error(tmp_path: Path) -> None:
    orchestrator = ContextOrchestrator(default_config(), workspace=tmp_path)
    with pytest.raises(MemoryStoreError, match="no memory store"):
        orchestrator.retrieve_memory("writer", project="lychd")
    assert not (tmp_path / ".lychd").exists() or not any((tmp_path / ".lychd").iterdir())


def test_exact_scope_through_the_orchestrator_reaches_role_less_memory(orchestrator: ContextOrchestrator) -> None:
    """Issue 26: the asking role was put into the scope, so ``exact`` never matched a role-less memory."""
    plan = orchestrator.retrieve_memory("writer", project="lychd", repository="lychd-core", scope_policy="exact")
    selected = [record.memory_id for record in plan.selected]
    assert selected and all(record.scope.role is None for record in plan.selected)
    assert all(record.scope.key == ("lychd", None, "lychd-core", None, None) for record in plan.selected)
