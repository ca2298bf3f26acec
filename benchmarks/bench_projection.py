"""structure.python projection vs bare libcst and ast parsing, side by side in one run.

On the standard library's own ``.py`` files (site-packages excluded) it reports:

* ``ast.parse`` of every file: the physical floor for parsing;
* bare ``libcst.parse_module`` of every file (in this process);
* cold projection through the Projector (read, verify, media type, rule, parse and
  outline in the parser worker, render, block, cache write) and its overhead ratio
  over the bare parse (goal <= 1.3);
* warm projection (every reference a cache hit) and its speed-up over cold (goal >= 50);
* cold projection on 2 processes vs 1 (goal >= 1.6);
* the done-when check: for every file libcst parses, the outline lists exactly the
  non-underscore top-level functions and classes ``ast`` finds, with the same lines.

Run: python benchmarks/bench_projection.py [--full] [--files N]
(default: a deterministic sample of 150 files; --full: every file, about 1,800 / 31 MB).
Exits non-zero if the done-when check finds a mismatch.
"""

from __future__ import annotations

import argparse
import ast
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import libcst

from lychd_core.config import default_config, parse_config
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Contribution, Projector
from lychd_core.registry import get_registry
from lychd_core.stores.sqlite.cache import ProjectionCache

STDLIB = Path(sysconfig.get_paths()["stdlib"])
OPTIONS = {"definitions": "public"}  # lists every non-underscore definition, whatever __all__ says


def stdlib_files(count: int | None) -> list[Path]:
    files = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts and p.is_file())
    if count is None or count >= len(files):
        return files
    step = len(files) // count
    return files[::step][:count]


def timed(label: str, action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = action()
    elapsed = time.perf_counter() - start
    print(f"  {label:<44} {elapsed:9.2f} s", flush=True)
    return elapsed, result


def ast_all(sources: list[bytes]) -> int:
    parsed = 0
    for data in sources:
        try:
            ast.parse(data)
            parsed += 1
        except (SyntaxError, ValueError):
            pass
    return parsed


def libcst_all(sources: list[bytes]) -> int:
    parsed = 0
    for data in sources:
        try:
            libcst.parse_module(data)
            parsed += 1
        except Exception:  # the same failures the profile reports as unavailable
            pass
    return parsed


def config_with_state(state: Path) -> Any:
    data = default_config().model_dump(mode="json")
    data["projection"]["rules"]["text/x-python"]["options"] = OPTIONS
    data["projection"]["max_bytes"] = 50_000_000
    data["projection"]["max_chars"] = 10_000_000
    data["stores"]["state_dir"] = str(state)
    return parse_config(data)


def project(refs: list[MaterialRef], state: Path, processes: int) -> tuple[Projector, list[Contribution]]:
    config = config_with_state(state)
    workspace = Workspace(STDLIB)
    cache = ProjectionCache(config.stores.path_of(config.stores.projection_cache, workspace.root))
    projector = Projector(config, get_registry(), workspace, cache)
    return projector, projector.project_many(refs, processes=processes)


def done_when_check(paths: list[Path], sources: list[bytes], contributions: list[Contribution]) -> tuple[int, int]:
    compared = mismatched = 0
    for path, data, contribution in zip(paths, sources, contributions, strict=True):
        if contribution.block is None:
            continue
        tree = ast.parse(data)
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        expected = [(n.name, n.lineno) for n in tree.body if isinstance(n, kinds) and not n.name.startswith("_")]
        facts: Any = contribution.facts
        found = [(d["name"], d["line"]) for d in facts["definitions"]]
        compared += 1
        if found != expected:
            mismatched += 1
            print(f"  MISMATCH {path}: ast {expected[:3]}... outline {found[:3]}...")
    return compared, mismatched


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="every standard-library file (the issue's size)")
    parser.add_argument("--files", type=int, default=150, help="sample size without --full (default 150)")
    args = parser.parse_args()
    paths = stdlib_files(None if args.full else args.files)
    sources = [p.read_bytes() for p in paths]
    size = sum(map(len, sources))
    print(f"{len(paths)} files, {size / 1e6:.1f} MB from {STDLIB}")
    workspace = Workspace(STDLIB)
    refs = [MaterialRef.for_current(workspace, workspace.relative(p), required=False) for p in paths]
    get_registry()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        # Warm up both parsers (imports, the worker process) outside the timings.
        project(refs[:2], base / "warmup", 1)
        libcst_all(sources[:2])
        t_ast, parsed_ast = timed("ast.parse (floor)", lambda: ast_all(sources))
        t_bare, parsed_cst = timed("libcst.parse_module (bare)", lambda: libcst_all(sources))
        t_cold, (projector, cold) = timed("cold projection, 1 process", lambda: project(refs, base / "one", 1))
        t_warm, warm = timed("warm projection (cache hits)", lambda: projector.project_many(refs))
        t_par, (_, parallel) = timed("cold projection, 2 processes", lambda: project(refs, base / "two", 2))
    projected = sum(c.ok for c in cold)
    assert all(c.cached for c in warm if c.ok), "warm run was not all cache hits"
    assert [c.digest for c in cold] == [c.digest for c in parallel] == [c.digest for c in warm], "outcomes differ"
    compared, mismatched = done_when_check(paths, sources, cold)
    print()
    print(f"ast parsed {parsed_ast}, libcst parsed {parsed_cst}, projected {projected} of {len(paths)}")
    print(f"cold / bare libcst parse      {t_cold / t_bare:6.2f}  (goal <= 1.3)")
    print(f"cold / warm                   {t_cold / t_warm:6.1f}x (goal >= 50)")
    print(f"1 process / 2 processes       {t_cold / t_par:6.2f}x (goal >= 1.6)")
    print(f"bare libcst / ast.parse       {t_bare / t_ast:6.1f}x")
    print(f"done-when check: {compared} outlines compared with ast, {mismatched} mismatches")
    return 1 if mismatched else 0


if __name__ == "__main__":
    raise SystemExit(main())
