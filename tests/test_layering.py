"""The code's layering: the contract holds, and the README's folder map names every folder."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lychd_core"


def folder_map() -> str:
    section = (ROOT / "README.md").read_text().split("## What is in the box", 1)[1]
    found = re.search(r"```\nlychd_core/\n(.*?)\n```", section, re.S)
    assert found is not None, "the README has a folder map under 'What is in the box'"
    return found.group(1)


def test_the_folder_map_names_every_folder_once() -> None:
    named = re.findall(r"^  (\w+)/", folder_map(), re.M)
    folders = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    assert sorted(named) == folders


def test_the_folder_map_lists_folders_in_the_contracts_order() -> None:
    config = (ROOT / ".importlinter").read_text()
    lines = config.split("layers =", 1)[1].split("\n\n", 1)[0].strip().splitlines()
    height = {name: -row for row, line in enumerate(lines) for name in line.split() if name != "|"}  # top first
    named = [name for name in re.findall(r"^  (\w+)/", folder_map(), re.M) if name in height]
    assert len(named) == len(height)
    assert named == sorted(named, key=height.__getitem__), "README lists folders bottom up, in the layer order"


def test_the_layering_contract_holds() -> None:
    command = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert command is not None, "import-linter is a dev dependency (requirements-dev.txt)"
    done = subprocess.run([command, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-4000:]
    assert "0 broken" in done.stdout
