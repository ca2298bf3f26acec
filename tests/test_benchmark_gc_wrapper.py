"""benchmarks/without_gc_pause.py turns the pause off only where asked, and refuses a module without one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WRAPPER = ROOT / "benchmarks" / "without_gc_pause.py"

PROBE = """
import contextlib, sys
import lychd_core.compression.validation as validation, lychd_core.stores.sqlite.memory as store
off = contextlib.nullcontext
print(store.cyclic_gc_paused is off, validation.cyclic_gc_paused is off, sys.argv[1:])
"""


def run(tmp_path: Path, *sites: str) -> subprocess.CompletedProcess[str]:
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    flags = [part for site in sites for part in ("--site", site)]
    command = [sys.executable, str(WRAPPER), *flags, str(probe), "--full"]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_only_the_named_site_loses_its_pause(tmp_path: Path) -> None:
    done = run(tmp_path, "lychd_core.stores.sqlite.memory")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True False ['--full']"


def test_a_module_without_a_pause_is_refused(tmp_path: Path) -> None:
    done = run(tmp_path, "lychd_core.memory.index")
    assert done.returncode == 2
    assert "does not use cyclic_gc_paused" in done.stderr
