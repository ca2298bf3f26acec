"""Run every benchmark once at its smallest size, so a benchmark that no longer runs fails CI.

This times nothing and asserts no figure: performance is read from the benchmarks'
own reports (docs/performance.md). It only checks that each ``bench_*.py`` still runs
to completion against the current code and prints a report.

Run: python benchmarks/smoke.py            (all benchmarks)
     python benchmarks/smoke.py ranking    (only bench_ranking.py)
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RELEVANCE_DATA = HERE.parents[1] / "shared" / "bench" / "relevance"

# The smallest arguments each benchmark accepts; a benchmark not named runs with its defaults.
SMALLEST: dict[str, list[str]] = {
    "cold_assemble": ["--rounds", "1", "--anchor", "none", "--trees", "1", "--venv", "current"],
    "cache": ["--turns", "12"],
    "tokens": ["--repeat", "1"],
    "memory": ["--sizes", "1000"],
    "projection": ["--files", "20"],
    "selection": ["--sizes", "1000", "--repeat", "1"],
    "startup": ["--rounds", "1"],
    "treesitter": ["--files", "20", "--repeat", "1"],
    "vault": ["--runs", "1"],
}
TIMEOUT_SECONDS = 600


def benchmarks(names: list[str]) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    unknown = sorted(set(names) - {path.stem.removeprefix("bench_") for path in found})
    if unknown:
        raise SystemExit(f"no benchmark named {', '.join(unknown)}; known: {', '.join(p.stem for p in found)}")
    return [path for path in found if not names or path.stem.removeprefix("bench_") in names]


def run_one(path: Path) -> tuple[bool, str]:
    name = path.stem.removeprefix("bench_")
    args = list(SMALLEST.get(name, []))
    if name in ("relevance", "ranking_share") and not RELEVANCE_DATA.is_dir():
        return True, f"not run: the relevance cases are not at {RELEVANCE_DATA}"
    if name == "relevance":
        args = ["--bench", str(RELEVANCE_DATA), "--limit", "1", "--budgets", "8000", "--out", "/dev/null"]
    if name == "ranking_share":
        args = ["--bench", str(RELEVANCE_DATA), "--limit", "1", "--rounds", "1"]
    try:
        done = subprocess.run(
            [sys.executable, str(path), *args], capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False
        )
    except subprocess.TimeoutExpired:
        return False, f"did not finish in {TIMEOUT_SECONDS} s"
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        return False, f"exit {done.returncode}:\n{tail}"
    if not done.stdout.strip():
        return False, "exit 0 but printed no report"
    return True, "ran"


def main(argv: list[str]) -> int:
    failed = 0
    for path in benchmarks(argv):
        started = time.monotonic()
        ok, detail = run_one(path)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {path.name:<24} {time.monotonic() - started:6.1f} s  {detail}", flush=True)
    print(f"{failed} of the benchmarks failed" if failed else "every benchmark ran")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
