"""The relevance benchmark in one process, with and without ranking, side by side.

Runs the same selection as ``lychd assemble`` (``ContextOrchestrator.assemble`` over the
files of ``--material``, walked like the CLI walks them) on the cases of
``../shared/bench/relevance`` with ``profiles/default.toml``, each budget's char cap set
to 3 x tokens as ``run.py`` does. Writes one JSON line per case and budget in
``run.py``'s format (``run.py --summarize`` reads it beside the peers' files).

What it measures is what ``run.py`` measures: the same profile with only
``governors.char_cap`` changed, the same walk of the package directory, the same query
text and the same gold-file matching (a gold file counts when any node
``L2:codex:<path>:...`` is selected). Checked run by run: on the first 4 cases of each
repository x 3 budgets, recall and the number of selected files were identical in all
36 runs. What differs is only the timing: here the projection cache is warm (filled
once per case, untimed) and ``time_s`` is the assembly alone, without interpreter
start-up, imports or projection. Official figures and times come from ``run.py``.
With ``--compare-unranked`` every run is repeated with ``[ranking]`` emptied and the
ratio of the medians is printed.

Run: python benchmarks/bench_relevance.py --out results.jsonl [--limit N] [--compare-unranked]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lychd_core.assembly import ContextOrchestrator
from lychd_core.config import LychdConfig, load_config
from lychd_core.projection.materials import MaterialRef
from lychd_core.projection.walk import walk_files
from lychd_core.ranking.plan import ViewPlan

ROOT = Path(__file__).resolve().parents[1]


def cause(entry: Any, plan: ViewPlan | None) -> str:
    """Why a ranked file is not in its full view, from the plan: ``scored 0``, ``larger than
    the room``, ``room to worse-ranked files`` (their views take at least what its full view
    lacked; ``..., better-ranked files short too`` when a better-ranked scored file is also
    below its full view, so the ranking's order would give that room to it first) or
    ``ranked too low`` (the better-ranked files' views took the room)."""
    index = entry.rank - 1
    if entry.score == 0:
        return "scored 0"
    if plan is None or index not in plan.short:
        return "planned full, another view selected"
    (need, left), (before, after) = plan.short[index], plan.spent[index]
    if need > left + before + after:
        return "larger than the room"
    if after < need - left:
        return "ranked too low"
    short_above = any(i < index and plan.chosen[i] != 0 for i in plan.short if i not in plan.unscored)
    return "room to worse-ranked files" + (", better-ranked files short too" if short_above else "")


def assemble(
    config: LychdConfig, tree: Path, case: dict[str, Any]
) -> tuple[float, float, list[str], dict[str, tuple[int, str]]]:
    orchestrator = ContextOrchestrator(config, workspace=tree)
    assert orchestrator.workspace is not None
    wall, cpu = time.perf_counter(), time.process_time()
    files = walk_files(tree / case["package_dir"], tree).files
    refs = [MaterialRef.for_current(orchestrator.workspace, f, required=False) for f in files]
    try:
        assembled = orchestrator.assemble(run_id="r", session_id="s", query=case["query"], codex=refs)
    finally:
        orchestrator.close()
    ranks: dict[str, tuple[int, str]] = {}
    ranked = getattr(assembled, "ranking", None)
    for entry in getattr(getattr(ranked, "report", None), "entries", ()):
        ranks.setdefault(entry.path, (entry.rank, cause(entry, getattr(ranked, "plan", None))))
    selected = list(assembled.plan.selected)
    return time.perf_counter() - wall, time.process_time() - cpu, selected, ranks


def with_cap(config: LychdConfig, tokens: int, ranked: bool) -> LychdConfig:
    governors = config.governors.model_copy(update={"char_cap": 3 * tokens})
    update: dict[str, Any] = {"governors": governors}
    if not ranked:
        update["ranking"] = config.ranking.model_copy(update={"profiles": []})
    return config.model_copy(update=update)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", default=str(ROOT.parent.parent / "shared" / "bench" / "relevance"))
    parser.add_argument("--profile", default=str(ROOT / "profiles" / "default.toml"))
    parser.add_argument("--out", required=True)
    parser.add_argument("--limit", type=int, default=0, help="first N cases of each repo (default: all)")
    parser.add_argument("--budgets", default="2000,4000,8000,16000,32000")
    parser.add_argument("--compare-unranked", action="store_true")
    parser.add_argument("--scratch", help="unpack trees here and keep them (and their projection caches) for a rerun")
    args = parser.parse_args()
    bench = Path(args.bench)
    cases = json.loads((bench / "cases.json").read_text())["cases"]
    if args.limit:
        repos = list(dict.fromkeys(c["repo"] for c in cases))
        cases = [c for r in repos for c in [c for c in cases if c["repo"] == r][: args.limit]]
    base = load_config(args.profile)
    budgets = [int(b) for b in args.budgets.split(",")]
    ranked_times: list[float] = []
    unranked_times: list[float] = []
    ranked_cpu: list[float] = []
    unranked_cpu: list[float] = []
    causes: list[tuple[int, str]] = []
    with open(args.out, "w", encoding="utf-8") as out, tempfile.TemporaryDirectory() as temporary:
        scratch = Path(args.scratch or temporary)
        for case in cases:
            tree = scratch / case["id"]
            if not tree.is_dir():
                tree.mkdir(parents=True)
                with tarfile.open(bench / case["tree"]) as archive:
                    archive.extractall(tree, filter="data")
            assemble(with_cap(base, budgets[0], True), tree, case)  # fills the projection cache, untimed
            for tokens in budgets:
                wall, cpu, selected, ranks = assemble(with_cap(base, tokens, True), tree, case)
                ranked_times.append(wall)
                ranked_cpu.append(cpu)
                if args.compare_unranked:
                    plain_wall, plain_cpu, _, _ = assemble(with_cap(base, tokens, False), tree, case)
                    unranked_times.append(plain_wall)
                    unranked_cpu.append(plain_cpu)
                codex = [k for k in selected if k.startswith("L2:codex:")]
                gold_nodes = {g: next((k for k in codex if k.startswith(f"L2:codex:{g}:")), None) for g in case["gold"]}
                found = [g for g, key in gold_nodes.items() if key is not None]
                row = {
                    "system": "lychd-ranked-inprocess",
                    "case": case["id"],
                    "repo": case["repo"],
                    "budget": tokens,
                    "gold": case["gold"],
                    "found": found,
                    "recall": len(found) / len(case["gold"]),
                    "all_gold": len(found) == len(case["gold"]),
                    "time_s": round(wall, 4),
                    "cpu_s": round(cpu, 4),
                    "selected_files": len(codex),
                    "gold_nodes": gold_nodes,
                    "gold_views": {
                        g: None if k is None else k.rsplit("#", 1)[1] if "#" in k else "full"
                        for g, k in gold_nodes.items()
                    },
                    "gold_rank": {g: ranks[g][0] if g in ranks else None for g in case["gold"]},
                }
                row["gold_cause"] = {
                    g: ranks[g][1] if g in ranks else "not ranked"
                    for g, view in row["gold_views"].items()
                    if view != "full"
                }
                causes.extend((tokens, c) for c in row["gold_cause"].values())
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(f"{case['id']:<24} {tokens:>6} recall={row['recall']:.2f} t={wall:.2f}s", flush=True)
    for tokens in budgets:
        counted = Counter(c for t, c in causes if t == tokens)
        listed = ", ".join(f"{n} {c}" for c, n in counted.most_common()) or "none"
        print(f"{tokens:>6} tokens, gold files not in their full view: {listed}")
    if args.compare_unranked:
        for what, ranked_side, plain_side in (
            ("wall", ranked_times, unranked_times),
            ("CPU", ranked_cpu, unranked_cpu),
        ):
            ranked, unranked = statistics.median(ranked_side), statistics.median(plain_side)
            print(
                f"median assemble {what} (warm, in-process): ranked {ranked:.3f}s, unranked {unranked:.3f}s, "
                f"ratio {ranked / unranked:.2f}"
            )


if __name__ == "__main__":
    main()
