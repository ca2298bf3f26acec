"""`lychd assemble` shows each node's label class, names the nodes behind the joined label,
takes caller labels, and refuses a target before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lychd_core.cli import main

ROOT = Path(__file__).resolve().parents[1]
BASE = ("assemble", "--config", str(ROOT / "profiles" / "default.toml"), "--workspace", str(ROOT), "--query", "why?")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*BASE, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_labels_come_from_the_default_profile_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--material", "README.md", "--material", "pyproject.toml", "--json")
    assert code == 0
    data = json.loads(out)
    labels = data["node_labels"]
    assert labels["L2:codex:README.md:verbatim@1"]["privacy_class"] == "PUBLIC"
    assert labels["L2:codex:README.md:verbatim@1"]["categories"] == ["documentation"]
    assert labels["L2:codex:pyproject.toml:verbatim@1"]["lineage_known"] is False
    assert data["label_sources"]["lineage unknown"] == ["L2:codex:pyproject.toml:verbatim@1", "query"]
    assert data["egress"] is None


def test_the_table_shows_label_classes_and_the_join_names_its_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--material", "README.md", "--query-label", "public")
    assert code == 0
    assert "privacy label: internal, set by the environment snapshot" in out
    code, out, _ = run(capsys, "--material", "README.md", "--query-label", "public", "--explain")
    assert code == 0
    table = out.split("every node, selected or omitted")[1]
    assert table.count(" public ") == 2 and table.count(" internal ") == 1, "README and query; environment"
    assert "joined label: INTERNAL weight 0; class INTERNAL from L3:environment:none@no-grant" in out


def test_a_target_admits_labelled_material_and_refuses_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--material", "README.md", "--query-label", "public", "--target", "hosted", "--json")
    assert code == 0 and json.loads(out)["egress"]["admitted"] is True
    code, out, err = run(capsys, "--material", "pyproject.toml", "--query-label", "public", "--target", "hosted")
    assert code == 1 and out == ""
    assert "EgressRefused" in err and "pyproject.toml" in err and "lineage unknown" in err
    code, _, err = run(capsys, "--material", "README.md", "--target", "nowhere")
    assert code == 1 and "UnknownTargetError" in err and "known: hosted, local" in err
    with pytest.raises(SystemExit) as usage:
        main([*BASE, "--query-label", "secret"])
    assert usage.value.code == 2


def test_the_readme_main_job_shows_labels_from_the_default_rules_and_passes_the_gate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import shlex

    readme = (ROOT / "README.md").read_text()
    command = next(line for line in readme.splitlines() if "lychd assemble" in line).split("lychd ", 1)[1]
    args = shlex.split(command)
    assert "--target" in args and "--query-label" in args
    code = main([*args, "--workspace", str(ROOT), "--config", str(ROOT / "profiles" / "default.toml"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    labels = data["node_labels"]
    assert labels["L2:codex:README.md:verbatim@1"]["privacy_class"] == "PUBLIC"
    codex = [node for node in data["candidate_labels"] if node.startswith("L2:codex:lychd_core/")]
    assert codex and all(data["candidate_labels"][node]["privacy_class"] == "PUBLIC" for node in codex)
    assert data["label"]["privacy_class"] == "INTERNAL" and data["egress"]["admitted"] is True
