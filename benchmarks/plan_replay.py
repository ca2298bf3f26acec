"""Record the planner's inputs of a relevance run, and replay them through ``plan_views``.

``record`` runs ``bench_relevance.py`` (its arguments after ``--``) and writes, for every
case and budget, what ``plan_views`` was given: the ranked paths, each file's view sizes
and names, the scores and the room. ``replay`` plans those inputs again with this
checkout's ``plan_views`` and prints full-view and mean recall per budget, averaged over
cases as ``run.py --summarize`` does. On the 600 runs of the 120 cases the replay gives
the real run's full-view recall exactly; mean recall can differ by a view at the very end
of the room (the selector, not the plan, has the last word). So a change to the plan can
be measured in seconds, and only the one kept needs the real run.

Run: python benchmarks/plan_replay.py record plans.jsonl -- --scratch /tmp/trees --out r.jsonl
     python benchmarks/plan_replay.py replay plans.jsonl [--misses 16000]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_relevance  # noqa: E402

import lychd_core.ranking.stage as stage  # noqa: E402
from lychd_core.ranking.plan import plan_views  # noqa: E402


def record(path: str, bench_args: list[str]) -> None:
    """Run the benchmark with ``stage``'s ranking and planning wrapped to write their inputs."""
    state: dict[str, Any] = {}
    rank, plan = stage.rank_or_fallback, stage.plan_views
    assemble = bench_relevance.assemble
    with open(path, "w", encoding="utf-8") as out:

        def ranked(*args: Any, **kwargs: Any) -> Any:
            report = rank(*args, **kwargs)
            state["paths"] = [entry.path for entry in report.entries]
            return report

        def planned(sizes: Any, scores: Any, room: int, names: Any = None) -> Any:
            row = {"case": state["case"], "tokens": state["tokens"], "paths": state["paths"]}
            row.update(sizes=[list(s) for s in sizes], scores=list(scores), room=room, names=names)
            out.write(json.dumps(row) + "\n")
            return plan(sizes, scores, room, names)

        def assembled(config: Any, tree: Path, case: dict[str, Any]) -> Any:
            state["case"], state["tokens"] = case["id"], config.governors.char_cap // 3
            return assemble(config, tree, case)

        stage.rank_or_fallback, stage.plan_views = ranked, planned  # type: ignore[assignment]
        bench_relevance.assemble = assembled
        sys.argv = [str(ROOT / "benchmarks" / "bench_relevance.py"), *bench_args]
        bench_relevance.main()


def replay(path: str, bench: Path, misses: int | None) -> None:
    """Plan every recorded input again (the last one per case and budget: the first budget's
    is recorded twice, the untimed run filling the cache first)."""
    cases = {c["id"]: c for c in json.loads((bench / "cases.json").read_text())["cases"]}
    inputs = {(r["case"], r["tokens"]): r for r in map(json.loads, Path(path).read_text().splitlines())}
    full: dict[int, list[float]] = defaultdict(list)
    found: dict[int, list[float]] = defaultdict(list)
    for (case, tokens), row in sorted(inputs.items()):
        chosen = plan_views(row["sizes"], row["scores"], row["room"], row["names"]).chosen
        gold = cases[case]["gold"]
        levels = [chosen[row["paths"].index(g)] if g in row["paths"] else None for g in gold]
        full[tokens].append(sum(level == 0 for level in levels) / len(gold))
        found[tokens].append(sum(level is not None for level in levels) / len(gold))
        for g, level in zip(gold, levels, strict=True):
            if tokens == misses and level != 0:
                rank = row["paths"].index(g) + 1 if g in row["paths"] else None
                print(f"  {case} {g}: rank {rank}, planned view {level}")
    for tokens in sorted(full):
        n = len(full[tokens])
        print(f"{tokens:>6}: full-view recall {sum(full[tokens]) / n:.3f}, mean recall {sum(found[tokens]) / n:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["record", "replay"])
    parser.add_argument("plans", help="the recorded inputs (JSON lines)")
    parser.add_argument("--bench", default=str(ROOT.parent.parent / "shared" / "bench" / "relevance"))
    parser.add_argument("--misses", type=int, help="replay: list the gold files not planned whole at this budget")
    args, rest = parser.parse_known_args()
    if args.command == "record":
        record(args.plans, [a for a in rest if a != "--"])
    else:
        replay(args.plans, Path(args.bench), args.misses)


if __name__ == "__main__":
    main()
