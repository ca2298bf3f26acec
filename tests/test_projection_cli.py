"""``lychd project``: end to end through the CLI."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from lychd_core.cli import main, project_cmd

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    files = {
        "pkg/mod.py": '"""Mod."""\n\ndef f(x):\n    return x\n',
        "pkg/old.py": 'print "py2"\n',
        "pkg/blob.py": "\x00\x01binary",
        "README.md": "# Readme\n",
        "main.c": "int main(void) { return 0; }\n",
        "ignored/skip.py": "x = 1\n",
        ".gitignore": "ignored/\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "outside").symlink_to("/etc/hostname")
    os.mkfifo(tmp_path / "pipe")
    return tmp_path


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main(["project", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_directory_walk_summary_and_reasons(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--workspace", str(workspace), str(workspace))
    status = {item["path"]: item["status"] for item in report["items"]}
    assert status == {
        ".gitignore": "projected",
        "README.md": "projected",
        "main.c": "projected",
        "outside": "unavailable",
        "pipe": "unavailable",
        "pkg/blob.py": "unavailable",
        "pkg/mod.py": "projected",
        "pkg/old.py": "unavailable",
    }
    reasons = {item["path"]: item["reason"] for item in report["items"] if item["reason"]}
    by_path = {item["path"]: item for item in report["items"]}
    assert by_path["main.c"]["profile"] == "verbatim@1" and by_path["main.c"]["media_source"] == "extension"
    assert "outside the workspace" in reasons["outside"]
    assert "special file" in reasons["pipe"]
    assert "application/octet-stream" in reasons["pkg/blob.py"]
    assert "cannot parse" in reasons["pkg/old.py"]
    assert report["summary"] == {"total": 8, "projected": 4, "cached": 0, "unavailable": 4}
    again = run_json(capsys, "--workspace", str(workspace), str(workspace))
    assert again["summary"]["cached"] == 4 and again["summary"]["projected"] == 0
    assert (workspace / ".lychd" / "projections.sqlite3").exists()


def test_single_file_show_and_no_cache(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--workspace", str(workspace), "--no-cache", "--show", str(workspace / "pkg/mod.py"))
    (item,) = report["items"]
    assert item["key"] == "codex:pkg/mod.py:structure.python@1" and "def f(x): ...  # L3" in item["text"]
    assert not (workspace / ".lychd").exists()


def test_table_output_for_people(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["project", "--workspace", str(workspace), "--processes", "2", str(workspace)]) == 0
    out = capsys.readouterr().out
    assert "projected" in out and "unavailable" in out and "binary file" in out


def test_paths_outside_the_workspace_are_refused(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["project", "--workspace", str(workspace / "pkg"), str(workspace / "README.md")]) == 1
    assert "outside the workspace" in capsys.readouterr().err
    assert main(["project", "--workspace", str(workspace), str(workspace / "missing.py")]) == 1


def test_this_repository_projects_end_to_end(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "lychd.toml"
    config.write_text(
        'schema_version = 1\n[role_policy]\nname = "roles.standard"\nrevision = 1\n'
        f'[stores]\nstate_dir = "{tmp_path / "state"}"\n'
        '[projection.rules."text/x-python"]\nprofile = "structure.python"\nrevision = 1\n'
    )
    report = run_json(capsys, "--workspace", str(ROOT), "--config", str(config), str(ROOT / "lychd_core"))
    python = [item for item in report["items"] if item["path"].endswith(".py")]
    assert len(python) > 20 and all(item["status"] == "projected" for item in python)


def test_progress_bar_on_a_terminal_for_long_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for index in range(25):
        (tmp_path / f"note{index:02}.txt").write_text(f"note {index}\n")
    advanced: list[int] = []
    original = project_cmd.progress_bar
    terminal = Console(file=io.StringIO(), force_terminal=True)  # stands in for a terminal on stderr

    @contextmanager
    def spy(what: str, total: int, console: Console | None = None) -> Iterator[Any]:
        assert total == 25
        with original(what, total, terminal) as advance:
            assert advance is not None

            def counted(done: int) -> None:
                advanced.append(done)
                advance(done)

            yield counted

    monkeypatch.setattr(project_cmd, "progress_bar", spy)
    assert main(["project", "--workspace", str(tmp_path), "--no-cache", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert sum(advanced) == 25 and "projected" in out and "projecting" not in out
    assert isinstance(terminal.file, io.StringIO) and "projecting" in terminal.file.getvalue()
