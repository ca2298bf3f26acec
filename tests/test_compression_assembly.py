"""Compression inside assembly: declared placement, what it saved, and refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lychd_core.assembly import ContextOrchestrator
from lychd_core.config import LychdConfig, PluginPin, default_config
from lychd_core.errors import AssemblyError, CompressorFailedError, ContextBudgetExceededError, NotSmallerError
from lychd_core.families import CompactionProposal, CompactionRequest, PluginFamily, SourceRange
from lychd_core.history import check_tool_pairing, group_messages
from lychd_core.projection.materials import MaterialRef
from lychd_core.registry import get_registry, registry_from
from lychd_core.vocabulary import Provenance, Trust
from tests.support.conversations import answer, tool_call, tool_return, user
from tests.toy_plugin.lychd_toy.plugins import NoOptions


def config(placement: str = "never", char_cap: int = 30_000, turn_window: int = 20, **compression: Any) -> LychdConfig:
    base = default_config()
    return base.model_copy(
        update={
            "governors": base.governors.model_copy(update={"char_cap": char_cap, "turn_window": turn_window}),
            "compression": base.compression.model_copy(update={"placement": placement, **compression}),
        }
    )


def big_tool_history(groups: int, body: int = 9_000) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for i in range(groups):
        messages += [
            user(f"question {i}"),
            tool_call("read_file", f"c{i}"),
            tool_return("read_file", f"c{i}", f"line {i}\n" + "y" * body),
            answer(f"answer {i}"),
        ]
    return messages


def assemble(cfg: LychdConfig, history: list[dict[str, Any]], **kw: Any) -> Any:
    return ContextOrchestrator(cfg).assemble(run_id="r", session_id="s", query="next?", history=history, **kw)


def test_placement_never_is_the_default_and_changes_nothing() -> None:
    history = big_tool_history(10)
    plain = assemble(config(), history)
    assert plain.compression == {
        **plain.compression,
        "placement": "never",
        "ran": False,
        "compactions": [],
    }
    assert default_config().compression.placement == "never"
    assert len(group_messages(plain.history)) < 10


def test_the_report_is_spelled_from_the_typed_compactions() -> None:
    compressed = assemble(config("over-budget"), big_tool_history(10))
    compactions = compressed.compression_report.compactions
    assert compactions and all(c.receipt.output_id == c.node.id for c in compactions)
    report = compressed.compression
    assert report is compressed.compression  # spelled once, on first read
    assert [r["output"]["id"] for r in report["compactions"]] == [c.node.id for c in compactions]
    assert compressed.to_json()["compression"] == report


def test_over_budget_elision_keeps_more_history_and_says_what_it_saved() -> None:
    history = big_tool_history(10)
    plain = assemble(config(), history)
    compressed = assemble(config("over-budget"), history)
    report = compressed.compression
    assert report["ran"] and "would be omitted" in report["reason"]
    elision = report["compressors"]["compress.tool-output-elision@2"]
    assert elision["proposals"] >= 1 and elision["saved_chars"] > 0
    kept = compressed.history
    assert len(group_messages(kept)) > len(group_messages(plain.history))
    check_tool_pairing(kept, "compressed history")
    assert kept[-4:] != history[-4:]  # the newest group itself was elided ...
    assert kept[-1] == history[-1] and kept[-3]["parts"][0]["tool_call_id"] == "c9"  # ... pairs intact
    body = kept[-2]["parts"][0]["content"]
    assert body.startswith("line 9\n") and "elided" in body and "sha256:" in body
    assert compressed.used_chars <= compressed.bounds.char_cap
    derived = [n for n in compressed.plan.graph.nodes if n.provenance is Provenance.DERIVED_COMPACTION]
    assert derived and all(n.trust is Trust.UNTRUSTED for n in derived)  # history is constrained
    assert history == big_tool_history(10)  # the caller's history is untouched


def test_the_flag_overrides_the_placement_both_ways() -> None:
    history = big_tool_history(10)
    assert assemble(config("over-budget"), history, compress=False).compression["ran"] is False
    assert assemble(config("never"), history, compress=True).compression["ran"] is True


def test_nothing_runs_when_everything_fits() -> None:
    report = assemble(config("over-budget", char_cap=96_000), big_tool_history(2, body=100)).compression
    assert report["ran"] is False and "everything fits" in report["reason"]


def test_history_prefix_digest_tells_the_model_what_it_no_longer_sees() -> None:
    history = big_tool_history(12, body=50)
    cfg = config("over-budget", char_cap=96_000, turn_window=3, scan_groups=5)
    assembled = assemble(cfg, history)
    first = assembled.history[0]
    text = first["parts"][0]["content"]
    assert first["kind"] == "request" and "earlier in this conversation" in text
    assert "read_file" in text and "question 8" in text  # newest dropped group listed
    receipt = assembled.compression["compactions"][-1]
    assert receipt["policy"]["id"] == "compress.history-prefix-digest@1"
    assert {o["kind"] for o in receipt["omissions"]} >= {"unseen-history"}  # older never offered
    assert assembled.history[1:] == history[-12:]  # then the kept groups, whole


def test_verbatim_python_material_becomes_its_outline(tmp_path: Path) -> None:
    body = "\n".join(f"    value_{i} = {i} * 2" for i in range(300))
    (tmp_path / "big.py").write_text(f'def big() -> int:\n    """Big."""\n{body}\n    return 0\n', encoding="utf-8")
    base = config("over-budget", char_cap=4_000)
    rules = {**base.projection.rules, "text/x-python": base.projection.rules["text/plain"]}  # verbatim
    cfg = base.model_copy(update={"projection": base.projection.model_copy(update={"rules": rules})})
    orchestrator = ContextOrchestrator(cfg, workspace=tmp_path)
    assert orchestrator.workspace is not None
    ref = MaterialRef.for_current(orchestrator.workspace, "big.py", required=False)
    try:
        assembled = orchestrator.assemble(run_id="r", session_id="s", query="q", codex=[ref])
    finally:
        orchestrator.close()
    codex = [b for b in assembled.floor if b.lineage.profile == "compress.verbatim-to-structure@1"]
    assert len(codex) == 1 and "def big" in codex[0].text and "value_299" not in codex[0].text
    assert codex[0].lineage.omissions and codex[0].lineage.source_digests
    node = assembled.plan.graph[codex[0].key]
    assert node.trust is Trust.TRUSTED  # repository source, trust-preserving outline


def test_required_material_that_cannot_fit_still_refuses_before_inference() -> None:
    orchestrator = ContextOrchestrator(config("over-budget", char_cap=2_000))
    with pytest.raises(ContextBudgetExceededError):
        orchestrator.assemble(run_id="r", session_id="s", query="q" * 5_000, history=big_tool_history(3))
    assert orchestrator.active_runs() == frozenset()


def test_over_budget_without_pinned_compressors_is_a_typed_refusal() -> None:
    with pytest.raises(AssemblyError, match="no compressors are pinned"):
        assemble(config("over-budget", compressors=[]), big_tool_history(10))


class Liar:
    name, revision, preserves_trust, options_model = "test.liar", 1, True, NoOptions

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def propose(self, request: CompactionRequest, options: Any) -> tuple[CompactionProposal, ...]:
        if self.mode == "raise":
            raise RuntimeError("model exploded")
        source = request.sources[0]
        return (
            CompactionProposal(
                output_id="liar:1",
                policy_id=request.policy.id,
                policy_digest=request.policy.digest,
                content=source.content + "!",
                ranges=(SourceRange(source.node_id, 0, len(source.content)),),
                source_digests=((source.node_id, source.digest),),
            ),
        )


@pytest.mark.parametrize(("mode", "error"), [("raise", CompressorFailedError), ("bigger", NotSmallerError)])
def test_a_bad_compressor_refuses_the_assembly_and_retains_nothing(mode: str, error: type[Exception]) -> None:
    liar = Liar(mode)
    base = get_registry()
    registry = registry_from(
        [(PluginFamily.ROLE_POLICY, base.role_policy("roles.standard", 1)), (PluginFamily.COMPRESSOR, liar)]
    )
    cfg = config("over-budget", compressors=[PluginPin(name="test.liar", revision=1)], max_chars=20_000)
    orchestrator = ContextOrchestrator(cfg, registry=registry)
    with pytest.raises(error):
        orchestrator.assemble(run_id="r", session_id="s", query="q", history=big_tool_history(10))
    assert orchestrator.active_runs() == frozenset()


def test_compressed_assembly_is_deterministic() -> None:
    history = big_tool_history(10)
    first = assemble(config("over-budget"), history)
    second = assemble(config("over-budget"), history)
    assert first.plan.digest == second.plan.digest and first.to_json() == second.to_json()


def test_every_selected_node_has_a_label_and_derived_nodes_join_their_sources() -> None:
    from tests.support.compaction import private

    history = big_tool_history(12, body=9_000)
    cfg = config("over-budget", turn_window=5, scan_groups=5)
    assembled = assemble(cfg, history, history_label=private("chat"))
    assert set(assembled.node_labels) == set(assembled.plan.selected)
    derived = [n.id for n in assembled.plan.graph.nodes if n.provenance is Provenance.DERIVED_COMPACTION]
    assert derived and all(n in assembled.node_labels for n in derived if assembled.plan.is_selected(n))
    for node_id in derived:
        if assembled.plan.is_selected(node_id):
            assert "chat" in assembled.node_labels[node_id].material_parents
    assert "chat" in assembled.label.material_parents


def test_execution_items_are_labelled_by_node() -> None:
    from lychd_core.assembly.execution import ExecutionProjection
    from tests.support.compaction import private

    projection = ExecutionProjection.parse(
        {
            "placement": "p",
            "owner": "o",
            "max_chars": 100,
            "items": [{"key": "k", "kind": "state", "text": "t", "revision": 1, "label": private("st").model_dump()}],
        }
    )
    assembled = assemble(config(), big_tool_history(3), execution=projection)
    assert set(assembled.node_labels) == set(assembled.plan.selected)
    assert "st" in assembled.node_labels["execution:state:k"].material_parents


def test_a_digest_may_take_an_elided_group_with_the_rest() -> None:
    history: list[dict[str, Any]] = []
    for i in range(8):
        body = 9_000 if i == 2 else 50
        history += [user(f"question {i}"), tool_call("read", f"c{i}"), tool_return("read", f"c{i}", "y" * body)]
        history.append(answer(f"answer {i}"))
    assembled = assemble(config("over-budget", char_cap=96_000, turn_window=3, scan_groups=5), history)
    receipts = {r["output"]["id"]: r for r in assembled.compression["compactions"]}
    digest = receipts["digest:history-prefix"]
    assert any(s["id"].startswith("elided:") for s in digest["sources"])  # a compaction of a compaction
    assert "earlier in this conversation" in assembled.history[0]["parts"][0]["content"]
    assert assembled.history[1:] == history[-12:]
