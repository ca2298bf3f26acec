"""Determinism across interpreters: the same inputs give byte-identical output under two
``PYTHONHASHSEED`` values, so no set or dict iteration order leaks into plans, digests or text.

Each run is a fresh process over a fresh copy of the same workspace at the same path (the
projection cache is part of what is compared: a cold run each time).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ("0", "4242")
HISTORY = [
    {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "where is selection?"}], "run_id": "r1"},
    {
        "kind": "response",
        "parts": [{"part_kind": "tool-call", "tool_name": "grep", "args": {"q": "select"}, "tool_call_id": "c1"}],
        "run_id": "r1",
    },
    {
        "kind": "request",
        "parts": [
            {"part_kind": "tool-return", "tool_name": "grep", "content": "graph/selection.py", "tool_call_id": "c1"}
        ],
        "run_id": "r1",
    },
    {"kind": "response", "parts": [{"part_kind": "text", "content": "in graph/selection.py"}], "run_id": "r1"},
]


def workspace(root: Path) -> Path:
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(ROOT / "lychd_core" / "graph", root / "pkg" / "graph")
    shutil.copytree(ROOT / "lychd_core" / "memory", root / "pkg" / "memory")
    shutil.copy(ROOT / "docs" / "selection.md", root / "selection.md")
    (root / "history.json").write_text(json.dumps(HISTORY))
    return root


def lychd(args: list[str], seed: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-m", "lychd_core.cli", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    "args",
    [
        [
            "assemble", "--config", str(ROOT / "profiles" / "default.toml"), "--workspace", ".",
            "--material", "pkg", "--material", "selection.md", "--history", "history.json",
            "--query", "How does selection explain an omitted closure?", "--json",
        ],
        ["rank", "--config", str(ROOT / "profiles" / "default.toml"), "--workspace", ".", "--material", "pkg",
         "--query", "memory tombstones dominate", "--json"],
        ["select", str(ROOT / "docs" / "examples" / "graph.json"), "--window", "10000", "--json"],
    ],
    ids=["assemble", "rank", "select"],
)  # fmt: skip
def test_output_is_byte_identical_under_two_hash_seeds(args: list[str], tmp_path: Path) -> None:
    outputs = [lychd(args, seed, workspace(tmp_path / "ws")) for seed in SEEDS]
    assert outputs[0], "the command printed nothing to compare"
    assert outputs[0] == outputs[1]
