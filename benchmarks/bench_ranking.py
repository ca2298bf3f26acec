"""Ranking cost against the number of candidates: 1k vs 10k files (goal: <= 12x, linear).

A synthetic tree: each file's outline names a class and four methods from a shared
vocabulary, its ``symbols`` facts define them and reference twelve names defined in
other files, and its path sits in one of forty packages. The query names two
identifiers and a few words. Times ``rank`` (lexical@1 x2 + symbol-graph@1 x1, as in
profiles/default.toml), the best of three runs at each size.

Run: python benchmarks/bench_ranking.py [--full]   (--full adds 50,000 files)
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


def best_of(runs: int, query: RankingQuery, candidates: tuple[RankingCandidate, ...]) -> float:
    profiles = [
        WeightedProfile("lexical@1", 2, LexicalProfile(), LexicalProfile.options_model()),
        WeightedProfile("symbol-graph@1", 1, SymbolGraphProfile(), SymbolGraphProfile.options_model()),
    ]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        rank(profiles, query, candidates)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="also 50,000 files")
    args = parser.parse_args()
    sizes = [1_000, 10_000] + ([50_000] if args.full else [])
    results = {}
    for size in sizes:
        candidates = tree(size)
        query = RankingQuery(f"Why does {candidates[3].facts['symbols']['defines'][0]} parse the cookie header twice?")  # type: ignore[index]
        results[size] = best_of(3, query, candidates)
        print(f"{size:>7} files: rank {results[size] * 1000:8.1f} ms ({results[size] / size * 1e6:.1f} us per file)")
    print(f"ratio 10k / 1k: {results[10_000] / results[1_000]:.2f} (goal <= 12)")
    if 50_000 in results:
        print(f"ratio 50k / 10k: {results[50_000] / results[10_000]:.2f} (linear: 5)")


if __name__ == "__main__":
    main()
