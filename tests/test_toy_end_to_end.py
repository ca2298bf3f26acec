"""The toy plugin's documented example (docs/writing_a_plugin.md) runs end to end.

The configuration is the one the page shows, read from the page itself; the commands
are the ones its "Run it end to end" section lists, run as a user would, in a fresh
process and a fresh workspace.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "writing_a_plugin.md").read_text(encoding="utf-8")


def documented_config() -> str:
    section = PAGE.split("## 5. Select it in a configuration", 1)[1].split("## 6.", 1)[0]
    match = re.search(r"```toml\n(.*?)```", section, re.S)
    assert match is not None, "section 5 of writing_a_plugin.md shows no TOML configuration"
    return match.group(1)


def lychd(workspace: Path, *args: str) -> Any:
    result = subprocess.run(
        [sys.executable, "-m", "lychd_core.cli", *args, "--json"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: generous on a loaded machine
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def fresh(tmp_path: Path) -> Path:
    (tmp_path / "c.toml").write_text(documented_config(), encoding="utf-8")
    (tmp_path / "a.toy").write_text("hello toy\n  world\n", encoding="utf-8")
    return tmp_path


def test_documented_config_declares_nothing_about_toy_files() -> None:
    assert "media_types" not in documented_config()  # the package's own declaration is what decides


def test_lychd_project_uses_the_declared_extension(fresh: Path) -> None:
    report = lychd(fresh, "project", "a.toy", "--config", "c.toml")
    (item,) = report["items"]
    assert item["status"] == "projected", item["reason"]
    assert item["media_type"] == "text/x-toy" and item["profile"] == "toy.upper@1"
    assert item["media_source"] == "profile-extension"
    assert item["media_declared_by"] == "toy.upper@1 from lychd-toy-plugin 0.1.0"


def test_lychd_assemble_places_the_projection(fresh: Path) -> None:
    context = lychd(fresh, "assemble", "--config", "c.toml", "--material", "a.toy", "--query", "what does a.toy say?")
    blocks = {block["key"]: block for block in context["floor"]}
    block = blocks["codex:a.toy:toy.upper@1"]
    assert block["text"] == "HELLO TOY\nWORLD"  # options = { strip = true } reached the profile
    assert block["lineage"]["profile"] == "toy.upper@1"
    assert context["query"]


def test_a_configuration_entry_decides_before_the_declaration(fresh: Path) -> None:
    (fresh / "c.toml").write_text(
        documented_config() + '\n[media_types]\n".toy" = "text/plain"\n\n[projection.rules."text/plain"]\n'
        'profile = "verbatim"\nrevision = 1\n',
        encoding="utf-8",
    )
    (item,) = lychd(fresh, "project", "a.toy", "--config", "c.toml")["items"]
    assert item["media_type"] == "text/plain" and item["media_source"] == "config-extension"
    assert item["media_declared_by"] == "configuration" and item["profile"] == "verbatim@1"
