"""Run a benchmark with the cyclic-GC pause turned off at chosen sites: the A/B for each pause.

    python benchmarks/without_gc_pause.py --site lychd_core.graph.graph benchmarks/bench_selection.py --full

Each ``--site`` is a module that calls ``cyclic_gc_paused()``; inside it the pause becomes a
no-op, everything else is unchanged. Run the same benchmark without this wrapper beside it:
a pause stays only where it moves an issue's goal by 5% or more (issue 26).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--site", action="append", required=True, help="module whose pause is turned off")
    parser.add_argument("benchmark", help="path of the benchmark script")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="the benchmark's own arguments")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    for site in args.site:
        module = importlib.import_module(site)
        if not hasattr(module, "cyclic_gc_paused"):
            parser.error(f"{site} does not use cyclic_gc_paused; sites: modules that import it")
        module.cyclic_gc_paused = contextlib.nullcontext  # type: ignore[attr-defined]
    sys.argv = [args.benchmark, *args.rest]
    runpy.run_path(args.benchmark, run_name="__main__")


if __name__ == "__main__":
    main()
