"""Ranking cost against the number of candidates: 1k vs 10k files (goal: <= 12x, linear).

A synthetic tree: each file's outline names a class and four methods from a shared
vocabulary, its ``symbols`` facts define them and reference twelve names defined in
other files, and its path sits in one of forty packages. The query names two
identifiers and a few words. Times ``rank`` (lexical@2 x2 + symbol-graph@4 x1, as in
profiles/default.toml).

Both trees are built before anything is timed, and the sizes are timed in turn, round
after round, so a burst of load from other processes hits both sizes alike. The figure
is the best of ``--rounds`` runs in CPU time (``time.process_time``: on a shared machine
wall time also counts the time other processes held the core); the best wall times are
printed beside it.

Run: python benchmarks/bench_ranking.py [--rounds N] [--full]   (--full adds 50,000 files)
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lychd_ranking import LexicalProfile, SymbolGraphProfile

from lychd_core.families import RankingCandidate, RankingQuery
from lychd_core.ranking import WeightedProfile, rank

WORDS = [
    "parse",
    "render",
    "cache",
    "store",
    "route",
    "match",
    "build",
    "load",
    "save",
    "token",
    "session",
    "cookie",
    "header",
    "request",
]


def tree(files: int, seed: int = 7) -> tuple[RankingCandidate, ...]:
    rng = random.Random(seed)
    classes = [f"{rng.choice(WORDS).title()}{rng.choice(WORDS).title()}{i}" for i in range(files)]
    found = []
    for i in range(files):
        methods = [f"{rng.choice(WORDS)}_{rng.choice(WORDS)}" for _ in range(4)]
        text = f"class {classes[i]}:\n" + "".join(
            f"    def {m}(self, value): ...  # L{3 + k}\n" for k, m in enumerate(methods)
        )
        references = sorted({classes[rng.randrange(files)] for _ in range(12)} - {classes[i]})
        facts = {"symbols": {"defines": sorted([classes[i], *methods]), "references": references}}
        path = f"pkg{i % 40}/{rng.choice(WORDS)}_{i}.py"
        found.append(RankingCandidate(f"codex:{path}:structure.python@1", path, text, facts))
    return tuple(found)


PROFILES = [
    WeightedProfile("lexical@2", 2, LexicalProfile(), LexicalProfile.options_model()),
    WeightedProfile("symbol-graph@4", 1, SymbolGraphProfile(), SymbolGraphProfile.options_model()),
]


def query_for(candidates: tuple[RankingCandidate, ...]) -> RankingQuery:
    name = candidates[3].facts["symbols"]["defines"][0]  # type: ignore[index,call-overload]
    return RankingQuery(f"Why does {name} parse the cookie header twice?")


def timed(query: RankingQuery, candidates: tuple[RankingCandidate, ...]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``rank`` call."""
    cpu, wall = time.process_time(), time.perf_counter()
    rank(PROFILES, query, candidates)
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="runs per size, interleaved (default 5)")
    parser.add_argument("--full", action="store_true", help="also 50,000 files")
    args = parser.parse_args()
    sizes = [1_000, 10_000] + ([50_000] if args.full else [])
    trees = {size: tree(size) for size in sizes}
    queries = {size: query_for(found) for size, found in trees.items()}
    for size in sizes:
        rank(PROFILES, queries[size], trees[size])  # untimed: fills the identifier cache
    cpu: dict[int, float] = {}
    wall: dict[int, float] = {}
    for _ in range(args.rounds):
        for size in sizes:
            spent, elapsed = timed(queries[size], trees[size])
            cpu[size] = min(cpu.get(size, spent), spent)
            wall[size] = min(wall.get(size, elapsed), elapsed)
    for size in sizes:
        print(
            f"{size:>7} files: rank {cpu[size] * 1000:8.1f} ms CPU ({cpu[size] / size * 1e6:.1f} us per file), "
            f"{wall[size] * 1000:8.1f} ms wall"
        )
    print(f"ratio 10k / 1k: {cpu[10_000] / cpu[1_000]:.2f} CPU, {wall[10_000] / wall[1_000]:.2f} wall (goal <= 12)")
    if 50_000 in cpu:
        print(f"ratio 50k / 10k: {cpu[50_000] / cpu[10_000]:.2f} CPU (linear: 5)")


if __name__ == "__main__":
    main()
