"""Start-up cost of the ``lychd`` command: CPU time per invocation vs ``python -c pass``.

    python benchmarks/bench_startup.py              # 10 rounds
    python benchmarks/bench_startup.py --rounds 30

Each round runs every case once, one after another (side by side, so all see the same
load); a case's figure is the median over rounds of its child's user + system CPU time
(``os.wait4``), which a loaded machine inflates far less than wall time. Ratio = case /
``python -c pass`` (the same interpreter, site and editable-install finders included).
The goal (issue 23): ``lychd --version`` and ``lychd --help`` at most 0.25 s of CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

# The console script users run (beside this interpreter), else the module.
SCRIPT = Path(sys.executable).with_name("lychd")
LYCHD = [str(SCRIPT)] if SCRIPT.is_file() else [sys.executable, "-m", "lychd_core.cli"]
CASES: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import lychd_core'": [sys.executable, "-c", "import lychd_core"],
    "lychd --version": [*LYCHD, "--version"],
    "lychd --help": [*LYCHD, "--help"],
    "lychd config schema": [*LYCHD, "config", "schema"],
    "lychd plugins": [*LYCHD, "plugins"],
    "lychd assemble --help": [*LYCHD, "assemble", "--help"],
}
GOAL_SECONDS = 0.25


def cpu_seconds(command: list[str]) -> float:
    """User + system CPU time of one run of ``command`` (its output discarded)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def measure(rounds: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(rounds):
        for name, command in CASES.items():
            samples[name].append(cpu_seconds(command))
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="runs of every case (default: 10)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    medians = measure(max(1, args.rounds))
    anchor = medians["python -c pass"]
    if args.json:
        print(json.dumps({"rounds": args.rounds, "cpu_seconds": medians}, indent=2))
        return 0
    print(f"median CPU seconds over {args.rounds} rounds (user + system), ratio vs python -c pass")
    for name, seconds in medians.items():
        goal = "  (goal <= 0.25 s)" if name in ("lychd --version", "lychd --help") else ""
        print(f"  {name:<32} {seconds:6.3f} s  x{seconds / anchor:5.1f}{goal}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
