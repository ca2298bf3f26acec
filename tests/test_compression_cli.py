"""`lychd assemble --compress` shows what each compressor saved and why."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.conversations import answer, tool_call, tool_return, user
from tests.test_cli_assemble import lychd


def write_history(tmp_path: Path, groups: int = 10) -> Path:
    messages = []
    for i in range(groups):
        messages += [
            user(f"question {i}"),
            tool_call("read_file", f"c{i}"),
            tool_return("read_file", f"c{i}", "y" * 20_000),
            answer(f"answer {i}"),
        ]
    path = tmp_path / "history.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    return path


def test_compress_shows_what_each_compaction_saved(tmp_path: Path) -> None:
    history = write_history(tmp_path)
    args = ("assemble", "--workspace", str(tmp_path), "--history", str(history), "--query", "q")
    summary = lychd(*args, "--compress")
    assert summary.returncode == 0, summary.stderr
    assert "compression (over-budget): placement over-budget" in summary.stdout
    assert "compaction(s) saved" in summary.stdout and "elided:history:" not in summary.stdout
    result = lychd(*args, "--compress", "--explain")
    assert result.returncode == 0, result.stderr
    assert "compress.tool-output-elision@2" in result.stdout and "elided:history:" in result.stdout
    plain = lychd(*args)
    assert plain.returncode == 0 and "compression" not in plain.stdout


def test_compress_json_carries_the_receipts(tmp_path: Path) -> None:
    history = write_history(tmp_path)
    result = lychd(
        "assemble", "--workspace", str(tmp_path), "--history", str(history), "--query", "q", "--compress", "--json"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)["compression"]
    assert report["ran"] and report["saved"]["chars"] > 0
    receipt = report["compactions"][0]
    assert receipt["format"] == "lychd.compaction-receipt" and receipt["omissions"]
    assert "y" * 100 not in json.dumps(report)  # receipts hold digests, not text


def test_compress_without_pinned_compressors_is_a_typed_refusal(tmp_path: Path) -> None:
    config = tmp_path / "lychd.toml"
    config.write_text('schema_version = 1\n[role_policy]\nname = "roles.standard"\nrevision = 1\n', encoding="utf-8")
    history = write_history(tmp_path)
    result = lychd(
        "assemble",
        "--config",
        str(config),
        "--workspace",
        str(tmp_path),
        "--history",
        str(history),
        "--query",
        "q",
        "--compress",
    )
    assert result.returncode == 1 and "no compressors are pinned" in result.stderr and "Traceback" not in result.stderr
