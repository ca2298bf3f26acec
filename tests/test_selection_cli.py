"""``lychd select``: the table for people, JSON for machines, typed refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lychd_core.cli import main
from lychd_core.cli.output import console
from lychd_core.graph import load_graph, select
from lychd_core.graph.graph import ContextGraph
from lychd_core.graph.jsonio import dump_graph
from lychd_core.graph.nodes import ContextNode
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement, Trust

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "docs" / "examples" / "graph.json")
BUDGET = ["--window", "2000", "--reserve-output", "500"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_table_explains_every_node_and_the_budget(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console, "width", 200)
    code, out, _ = run(capsys, "select", EXAMPLE, "--role", "reviewer", *BUDGET)
    assert code == 0
    for word in ("node", "class", "provenance", "tokens", "selected", "reason", "omitted", "hidden"):
        assert word in out
    assert "budget (tokens)" in out and "usable" in out and "1500" in out
    assert "nodes selected" in out
    for node in load_graph(EXAMPLE):
        assert node.id in out


def test_json_output_is_the_plan(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "select", EXAMPLE, "--role", "reviewer", *BUDGET, "--json")
    assert code == 0
    data = json.loads(out)
    graph = load_graph(EXAMPLE)
    assert data["format"] == "lychd.selection-plan"
    assert set(data["explanations"]) == {node.id for node in graph}
    assert data["accounting"]["usable"] == 1500
    assert data["profile"]["role"] == "reviewer"
    assert not any(node_id.startswith(("rationale:", "memory:", "history:")) for node_id in data["selected"])
    fields = {"bound", "needs", "remaining", "blocking", "hidden", "hidden_by", "detail"}
    assert all(fields <= set(e) for e in data["explanations"].values())
    hidden = [e for e in data["explanations"].values() if e["reason"] == "hidden"]
    assert hidden and all(e["hidden_by"]["role"] == "reviewer" for e in hidden)
    again = json.loads(run(capsys, "select", EXAMPLE, "--role", "reviewer", *BUDGET, "--json")[1])
    assert again == data


def test_json_matches_the_library(capsys: pytest.CaptureFixture[str]) -> None:
    from lychd_roles import StandardRoles, StandardRolesOptions

    from lychd_core.graph import SelectionBounds, TokenBudget

    code, out, _ = run(capsys, "select", EXAMPLE, "--role", "writer", *BUDGET, "--max-history", "1", "--json")
    assert code == 0
    profile = StandardRoles().profile("writer", StandardRolesOptions())
    plan = select(load_graph(EXAMPLE), profile, TokenBudget(2000, 500), SelectionBounds(max_history_groups=1))
    assert json.loads(out)["digest"] == plan.digest


def test_unusable_budget_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "select", EXAMPLE, "--role", "writer", "--window", "100", "--reserve-output", "100")
    assert code == 1 and "BudgetError" in err and "usable" in err


def test_a_window_is_needed(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "select", EXAMPLE, "--role", "writer")
    assert code == 1 and "--window" in err


def test_a_bad_graph_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    path.write_bytes(b"\xff\xfe not json")
    code, _, err = run(capsys, "select", str(path), *BUDGET)
    assert code == 1 and "GraphError" in err and "UTF-8" in err


def test_hidden_required_material_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ancestry = ContextNode.create(
        id="ancestry",
        content="how the writer got here",
        provenance=Provenance.AGENT,
        authority=Authority.NON_AUTHORITATIVE,
        trust=Trust.CONSTRAINED,
        context_class=ContextClass.PRODUCER_ANCESTRY,
        requirement=Requirement.REQUIRED,
        token_estimate=5,
    )
    path = tmp_path / "graph.json"
    path.write_text(dump_graph(ContextGraph([ancestry])), encoding="utf-8")
    code, _, err = run(capsys, "select", str(path), "--role", "reviewer", *BUDGET)
    assert code == 1 and "RequiredHiddenError" in err and "'ancestry'" in err


def test_the_configured_policy_options_and_defaults_apply(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "lychd.toml"
    config.write_text(
        "schema_version = 1\n"
        '[role_policy]\nname = "roles.standard"\nrevision = 1\n'
        '[role_policy.options]\nhidden_classes = ["candidate"]\n'
        '[assembly]\nrole = "reviewer"\nwindow = 2000\nreserve_output = 500\n',
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "select", EXAMPLE, "--config", str(config), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["profile"]["role"] == "reviewer"
    assert data["explanations"]["candidate:patch"]["reason"] == "hidden"
    config.write_text(config.read_text().replace('hidden_classes = ["candidate"]', "grant = 1"), encoding="utf-8")
    code, _, err = run(capsys, "select", EXAMPLE, "--config", str(config))
    assert code == 1 and "ConfigError" in err and "grant" in err
