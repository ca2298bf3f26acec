"""`lychd assemble`, the main job, end to end through the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.conversations import conversation, tool_return, turn

ROOT = Path(__file__).resolve().parents[1]


def lychd(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lychd_core.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "160"},
        check=False,
    )


def test_the_readme_main_job_assembles_this_repository() -> None:
    result = lychd(
        "assemble", "--config", "profiles/default.toml", "--workspace", ".", "--material", "lychd_core",
        "--material", "README.md", "--instructions", "You answer questions about this repository.",
        "--query", "Where are plugins loaded and validated?",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "every node, selected or omitted" not in result.stdout, "the per-node table is behind --explain"
    assert "prefix digest: sha256:" in result.stdout and "privacy label:" in result.stdout
    assert "README.md" in result.stdout and "L2:codex:README.md:verbatim@1" not in result.stdout


def test_json_output_is_the_whole_assembled_context(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('"""A."""\n\ndef f(x: int) -> int:\n    return x\n')
    history = tmp_path / "history.json"
    history.write_text(json.dumps(conversation(4)))
    continuation = tmp_path / "continuation.json"
    continuation.write_text(json.dumps(turn(9)))
    result = lychd(
        "assemble", "--workspace", str(tmp_path), "--material", "a.py", "--history", str(history),
        "--continuation", str(continuation), "--query", "q", "--window", "8000", "--reserve-output", "1000", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [block["key"] for block in data["floor"]] == ["codex:a.py:structure.python@1", "environment:none@no-grant"]
    assert data["window"] == 8000 and data["governed"]["char_cap"] == 24_000
    assert data["continuation"] == turn(9) and data["history"] == conversation(4)
    assert set(data["plan"]["explanations"]) >= {"query", "continuation"}
    assert data["plan"]["explanations"]["query"]["bound"] is None and "needs" in data["plan"]["explanations"]["query"]
    assert data["environment"] == {"capability": None, "warm": [], "active": []}
    again = lychd(
        "assemble", "--workspace", str(tmp_path), "--material", "a.py", "--history", str(history),
        "--continuation", str(continuation), "--query", "q", "--window", "8000", "--reserve-output", "1000", "--json",
    )  # fmt: skip
    assert again.stdout == result.stdout, "the same inputs give byte-identical output"


def test_bad_inputs_are_typed_refusals(tmp_path: Path) -> None:
    (tmp_path / "big.md").write_text("word " * 10_000)
    not_a_list = tmp_path / "h.json"
    not_a_list.write_text('{"kind": "request"}')
    orphan = tmp_path / "c.json"
    orphan.write_text(json.dumps([tool_return("search", "c1", "ok")]))
    cases = [
        (["--history", str(not_a_list)], "AssemblyError"),
        (["--continuation", str(orphan)], "HistoryError"),
        (["--material", "big.md", "--window", "1000", "--reserve-output", "10"], "ContextBudgetExceededError"),
        (["--window", "1000", "--reserve-output", "1000"], "ContextBudgetExceededError"),
        (["--material", "../outside.py"], "Material"),
    ]
    for extra, error in cases:
        result = lychd("assemble", "--workspace", str(tmp_path), "--query", "q", *extra)
        assert result.returncode == 1, (extra, result.stdout, result.stderr)
        assert error in result.stderr and "Traceback" not in result.stderr, (extra, result.stderr)


def test_missing_query_is_a_usage_error() -> None:
    assert lychd("assemble", "--workspace", ".").returncode == 2


def test_directory_material_explains_what_it_cannot_use(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "a.py").write_text("def f() -> int:\n    return 1\n")
    (folder / "broken.py").write_text("x = (\n")
    (folder / "blob.bin").write_bytes(bytes(range(256)))
    os.mkfifo(folder / "fifo")
    result = lychd("assemble", "--workspace", str(tmp_path), "--material", "d", "--query", "q", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["floor"][0]["key"] == "codex:d/a.py:structure.python@1"
    reasons = {item["what"]: item["reason"] for item in data["not_nodes"]}
    assert "libcst cannot parse" in reasons["codex:d/broken.py"]
    assert "d/blob.bin is a binary file" in reasons["codex:d/blob.bin"]
    assert "rules exist for" not in reasons["codex:d/blob.bin"]
    assert [item["what"] for item in data["skipped_material"]] == ["d/fifo"]
    assert "a special file" in data["skipped_material"][0]["reason"]
