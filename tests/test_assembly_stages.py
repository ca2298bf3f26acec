"""Each named assembly stage alone, with its typed input and output (lychd_core.assembly.stages)."""

from __future__ import annotations

from typing import Any

import pytest

import lychd_core.assembly.stages.rank as rank_stage_module
from lychd_core.assembly import ContextOrchestrator
from lychd_core.assembly.bounds import assembly_bounds
from lychd_core.assembly.environment import EnvironmentSnapshots, environment_block
from lychd_core.assembly.floor import Floor
from lychd_core.assembly.request import AssemblyRequest
from lychd_core.assembly.runs import RunCache
from lychd_core.assembly.stages.graph import CallInputs, build_graph
from lychd_core.assembly.stages.project import ProjectedFloor, project_floor, refuse_early
from lychd_core.assembly.stages.rank import optional_room, rank_stage
from lychd_core.assembly.stages.select import select_stage
from lychd_core.blocks import Block, Layer
from lychd_core.config import default_config
from lychd_core.errors import AssemblyError, ContextBudgetExceededError, LeaseError
from lychd_core.projection.projector import Projector
from lychd_core.registry import get_registry
from lychd_core.vocabulary import Requirement
from tests.support.conversations import conversation

ENV = environment_block("s", None)


def block(layer: Layer, key: str, text: str) -> Block:
    return Block(layer=layer, key=key, text=text)


def no_projector() -> Projector:
    raise AssertionError("no material reference was given, so no projector is asked for")


def projected(*codex: Block) -> ProjectedFloor:
    identity = [block(Layer.IDENTITY, "id", "You help.")]
    return project_floor(identity, list(codex), [], ENV, no_projector, with_alternates=False)


def call(query: str = "where?", history: Any = ()) -> CallInputs:
    return CallInputs(query, "", (), history, None)


def test_the_floor_keeps_each_block_with_its_requirement() -> None:
    a, b = block(Layer.IDENTITY, "a", "xx"), block(Layer.CODEX, "b", "yyyy")
    floor = Floor.of([(a, True), (b, False)])
    assert floor.blocks == (a, b) and floor.required == (True, False) and len(floor) == 2
    assert floor.required_chars() == 2
    assert floor.required_chars_by_layer() == {"identity": 2, "codex": 0, "environment": 0, "karma": 0}


def test_project_orders_identity_codex_environment_karma_and_checks_keys() -> None:
    code = block(Layer.CODEX, "app.py", "def f(): ...")
    karma = block(Layer.KARMA, "k", "note")
    result = project_floor(
        [block(Layer.IDENTITY, "id", "I")], [code], [karma], ENV, no_projector, with_alternates=False
    )
    assert [b.layer for b in result.floor.blocks] == [Layer.IDENTITY, Layer.CODEX, Layer.ENVIRONMENT, Layer.KARMA]
    assert all(result.floor.required) and result.unusable == ()
    with pytest.raises(AssemblyError, match=r"repeated: app\.py"):
        project_floor([], [code, code], [], ENV, no_projector, with_alternates=False)
    with pytest.raises(AssemblyError, match="identity takes layer IDENTITY"):
        project_floor([karma], [], [], ENV, no_projector, with_alternates=False)


def test_the_early_refusal_counts_the_floor_before_anything_projects() -> None:
    config = default_config()
    bounds = assembly_bounds(config, None, None, None)
    big = block(Layer.IDENTITY, "big", "x" * bounds.char_cap)
    request = AssemblyRequest(run_id="r", session_id="s", query="q", identity=[big])
    with pytest.raises(ContextBudgetExceededError) as refused:
        refuse_early(bounds, request, ENV, "")
    assert refused.value.parts["identity"] == bounds.char_cap and refused.value.required > bounds.char_cap
    refuse_early(bounds, AssemblyRequest(run_id="r", session_id="s", query="q"), ENV, "")  # fits: no refusal


def test_a_codex_item_that_is_neither_a_reference_nor_a_block_is_refused_by_name() -> None:
    with pytest.raises(AssemblyError) as refused:
        AssemblyRequest(run_id="r", session_id="s", query="q", codex=["app.py"])  # type: ignore[list-item]
    assert str(refused.value) == (
        "codex[0] is a str ('app.py'); the codex takes MaterialRef values and layer CODEX Blocks; "
        "for a file, pass MaterialRef.for_current(workspace, 'app.py')"
    )
    with pytest.raises(AssemblyError, match=r"codex must be a list .* got str 'app\.py'"):
        AssemblyRequest(run_id="r", session_id="s", query="q", codex="app.py")  # type: ignore[arg-type]
    with pytest.raises(AssemblyError, match="codex takes layer CODEX Blocks, got KARMA block 'k'"):
        project_floor([], [block(Layer.KARMA, "k", "x")], [], ENV, no_projector, with_alternates=False)
    orchestrator = ContextOrchestrator(default_config())
    with pytest.raises(AssemblyError, match=r"codex\[1\] is a int"):
        orchestrator.assemble(run_id="r", session_id="s", query="q", codex=[block(Layer.CODEX, "c", "x"), 3])


def test_the_request_refuses_what_no_stage_could_use() -> None:
    with pytest.raises(AssemblyError, match="run_id and session_id"):
        AssemblyRequest(run_id="", session_id="s", query="q")
    with pytest.raises(AssemblyError, match="query must be non-empty"):
        AssemblyRequest(run_id="r", session_id="s", query="")
    with pytest.raises(AssemblyError, match="history must be a list"):
        AssemblyRequest(run_id="r", session_id="s", query="q", history="not a list")  # type: ignore[arg-type]


def test_rank_without_profiles_keeps_the_floor_and_room_excludes_what_is_required() -> None:
    config = default_config()
    bounds = assembly_bounds(config, None, None, None)
    floor = projected(block(Layer.CODEX, "a.py", "a" * 100))
    room = optional_room(bounds, floor, bounds.chars_per_token, 10)
    assert room == bounds.char_cap - 10 - floor.floor.required_chars()
    ranked = rank_stage(
        config.model_copy(update={"ranking": config.ranking.model_copy(update={"profiles": ()})}),
        get_registry(),
        "q",
        [],
        floor,
        room,
    )
    assert [p.block for p in ranked.placements] == list(floor.floor.blocks) and ranked.report is None


def test_rank_with_profiles_but_nothing_optional_is_what_rank_floor_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """With profiles configured but no optional Codex block, the stage returns the floor as
    ``rank_floor`` would, without building a ranking query."""
    config = default_config()
    assert config.ranking.profiles, "the default configuration ranks"
    floor = projected(block(Layer.CODEX, "a.py", "a" * 100))  # given blocks are required
    seed = rank_stage_module.ranking_query(config, "q", conversation(2), floor.floor.entries)
    expected = rank_stage_module.rank_floor(config, get_registry(), seed, floor.floor.entries, floor.facts, 10_000)

    def no_query(*_: object) -> None:
        raise AssertionError("nothing to rank: no ranking query is built")

    monkeypatch.setattr(rank_stage_module, "ranking_query", no_query)
    ranked = rank_stage(config, get_registry(), "q", conversation(2), floor, 10_000)
    assert ranked == expected and ranked.report is None


def test_build_graph_reserves_the_required_then_offers_history_newest_first() -> None:
    config = default_config()
    bounds = assembly_bounds(config, None, None, None)
    floor = projected()
    ranked = rank_stage(config, get_registry(), "q", [], floor, 10_000)
    history = conversation(2)
    built = build_graph(ranked, call(history=history), bounds, bounds.chars_per_token, scan_groups=None)
    required = [n for n in built.nodes if n.requirement is Requirement.REQUIRED]
    assert built.required_chars == floor.floor.required_chars() + len("where?")
    assert {n.id for n in required} >= {n.id for n in built.nodes[: len(floor.floor)]}
    assert len(built.history_nodes) == len(built.history_groups) >= 2
    assert built.history_groups[0].start > built.history_groups[1].start  # newest first
    assert built.nodes[-len(built.history_nodes) :] == built.history_nodes


def test_select_keeps_every_required_node_and_the_newest_history() -> None:
    config = default_config()
    bounds = assembly_bounds(config, None, None, None)
    ranked = rank_stage(config, get_registry(), "q", [], projected(), 10_000)
    history = conversation(2)
    built = build_graph(ranked, call(history=history), bounds, bounds.chars_per_token, scan_groups=None)
    orchestrator = ContextOrchestrator(config)
    selection = select_stage(
        built,
        orchestrator.role_profile("writer"),
        bounds,
        config.history,
        history_end=len(history),
        previous_start=None,
    )
    assert set(selection.plan.selected) == {n.id for n in built.nodes}
    assert selection.trim.start == 0 and selection.unusable == ()


def test_the_run_cache_leases_until_release_and_the_orchestrator_is_a_context_manager() -> None:
    with ContextOrchestrator(default_config()) as orchestrator:
        assembled = orchestrator.assemble(run_id="r", session_id="s", query="q")
        assert orchestrator.runs.get("r") is assembled and orchestrator.active_runs() == {"r"}
    cache = RunCache(EnvironmentSnapshots())
    cache.retain(assembled, None, ENV)
    assert cache.active() == {"r"}
    cache.release("r")
    cache.release("r")  # idempotent
    with pytest.raises(LeaseError):
        cache.get("r")
