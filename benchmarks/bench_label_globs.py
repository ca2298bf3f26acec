"""``[[labels]]`` glob matching: the linear matcher against the backtracking translation it replaced.

    python benchmarks/bench_label_globs.py

1. Ordinary rules (``profiles/default.toml``'s) over every file of this repository, first
   match wins, as :func:`~lychd_core.privacy.label_for` runs them: the linear matcher
   against the old translation (the anchor), run alternately, best of several rounds.
2. Hostile patterns (``k`` runs of ``*`` against one 200-character name that almost
   matches): the old translation grows as ``n^k`` (it is timed only up to 3 runs; 4 took
   34 s per ``assemble``, 5 never finished), the new one stays flat.
"""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from lychd_core.config import load_config
from lychd_core.privacy.globs import compile_glob

ROOT = Path(__file__).resolve().parents[1]


def old_compile(pattern: str) -> re.Pattern[str]:
    """The translation ``lychd_core/privacy/rules.py`` used before issue 27 (it backtracks)."""
    anchored, body = pattern.startswith("/"), pattern.strip("/")
    prefix = "" if anchored or "/" in body else "(?:[^/]+/)*"
    return re.compile(f"^{prefix}{_body(body)}(?:/.*)?$", re.DOTALL)


def _body(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] in "*?":
            out.append("[^/]*" if body[i] == "*" else "[^/]")
            i += 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    return "".join(out)


def timed(fn: Callable[[], object], rounds: int = 7) -> float:
    times = []
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    skipped = {".git", ".venv", "__pycache__", ".lychd", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
    paths = sorted(
        path.relative_to(ROOT).as_posix()
        for path in ROOT.rglob("*")
        if path.is_file() and not skipped.intersection(path.relative_to(ROOT).parts) and ".egg-info" not in str(path)
    )
    patterns = [rule.path for rule in load_config(ROOT / "profiles" / "default.toml").labels]
    new = [compile_glob(p) for p in patterns]
    old = [old_compile(p) for p in patterns]

    def first_new() -> int:
        return sum(next((i for i, g in enumerate(new) if g.match(path)), -1) for path in paths)

    def first_old() -> int:
        return sum(next((i for i, g in enumerate(old) if g.match(path)), -1) for path in paths)

    assert first_new() == first_old()
    anchor_times, new_times = [], []
    for _ in range(7):
        anchor_times.append(timed(first_old, 1))
        new_times.append(timed(first_new, 1))
    anchor, measured = min(anchor_times), min(new_times)
    print(f"{len(paths):,} paths x {len(patterns)} default rules (first match)")
    print(f"  old translation (anchor)   {anchor * 1000:8.2f} ms")
    print(f"  linear matcher             {measured * 1000:8.2f} ms")
    print(f"linear / old                 {measured / anchor:8.2f}x")
    name = "a" * 200
    print("hostile: k runs of '*a' then '*b' against a 200-character name of 'a's")
    for runs in (1, 2, 3, 5, 16):
        pattern = "*a" * runs + "*b"
        glob = compile_glob(pattern)
        line = f"  k={runs:2d}  linear {timed(partial(glob.match, name)) * 1e6:9.1f} us"
        if runs <= 3:
            regex = old_compile(pattern)
            line += f"   old {timed(partial(regex.match, name), 3) * 1e6:12.1f} us"
        else:
            line += "   old (not run: n^k)"
        print(line)


if __name__ == "__main__":
    main()
