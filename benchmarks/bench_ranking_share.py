"""What the ranking stage adds to a warm ``assemble`` (goal: at most 10%).

On the relevance cases (``../shared/bench/relevance``, first ``--limit`` per repository),
each tree is assembled once to fill the projection cache (untimed), then, round after
round and side by side, (a) a ranked assembly of ``profiles/default.toml`` with the time
spent inside the ranking stage (``rank_floor``: scoring, views, the plan) measured apart,
and (b) the same assembly with ``[ranking]`` emptied. Reported, in CPU time
(``time.process_time``; the machine is shared): the median share of the ranked assembly
spent in the ranking stage, and the median ratio ranked / unranked (which also counts
the extra view nodes the selector sees). Both are in-process, without interpreter
start-up and imports, which a ``lychd assemble`` process adds on top (so its share is
smaller still).

With ``--cli`` it also times whole warm ``lychd assemble`` processes (child CPU time,
start-up and imports included; cache filled by an untimed run), ranked and unranked,
side by side: the share the ranking stage adds to the command as a user runs it.

Run: python benchmarks/bench_ranking_share.py [--limit N] [--rounds N] [--budget TOKENS] [--cli]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import lychd_core.assembly.stages.rank as rank_stage_module
from lychd_core.assembly import ContextOrchestrator
from lychd_core.config import LychdConfig, load_config
from lychd_core.projection.materials import MaterialRef
from lychd_core.projection.walk import walk_files

ROOT = Path(__file__).resolve().parents[1]
SHARED = next(
    (p for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared") if (p / "bench" / "relevance").is_dir()),
    ROOT.parent / "shared",
)
in_ranking = [0.0]


def timed(stage: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return stage(*args, **kwargs)
        finally:
            in_ranking[0] += time.process_time() - start

    return wrapper


def assemble(config: LychdConfig, tree: Path, case: dict[str, Any]) -> float:
    """CPU seconds of one assembly (walk, projection from the warm cache, ranking, selection)."""
    orchestrator = ContextOrchestrator(config, workspace=tree)
    assert orchestrator.workspace is not None
    start = time.process_time()
    try:
        files = walk_files(tree / case["package_dir"], tree).files
        refs = [MaterialRef.for_current(orchestrator.workspace, f, required=False) for f in files]
        orchestrator.assemble(run_id="r", session_id="s", query=case["query"], codex=refs)
    finally:
        orchestrator.close()
    return time.process_time() - start


def cli_cpu(profile: Path, tree: Path, case: dict[str, Any]) -> float:
    """Child CPU seconds of one ``lychd assemble`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = ["lychd", "assemble", "--config", str(profile), "--workspace", str(tree)]
    command += ["--material", case["package_dir"], "--query", case["query"], "--json"]
    subprocess.run(command, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def profiles(base: Path, tokens: int, scratch: Path) -> tuple[Path, Path]:
    """The profile with the budget's char cap, ranked and with ``[ranking]`` profiles emptied."""
    text = base.read_text().replace("char_cap = 96000", f"char_cap = {3 * tokens}")
    start = text.index("[ranking]\nprofiles = [")
    end = text.index("]\n", text.index("profiles = [", start) + len("profiles = [")) + 2
    ranked, unranked = scratch / "ranked.toml", scratch / "unranked.toml"
    ranked.write_text(text)
    unranked.write_text(text[:start] + "[ranking]\nprofiles = []\n" + text[end:])
    return ranked, unranked


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", default=str(SHARED / "bench" / "relevance"))
    parser.add_argument("--profile", default=str(ROOT / "profiles" / "default.toml"))
    parser.add_argument("--limit", type=int, default=3, help="first N cases of each repo")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budget", type=int, default=8000, help="tokens (char cap = 3 x tokens)")
    parser.add_argument("--cli", action="store_true", help="also time whole warm lychd assemble processes")
    args = parser.parse_args()
    bench = Path(args.bench)
    cases = json.loads((bench / "cases.json").read_text())["cases"]
    repos = list(dict.fromkeys(c["repo"] for c in cases))
    cases = [c for r in repos for c in [c for c in cases if c["repo"] == r][: args.limit]]
    base = load_config(args.profile)
    ranked = base.model_copy(update={"governors": base.governors.model_copy(update={"char_cap": 3 * args.budget})})
    unranked = ranked.model_copy(update={"ranking": ranked.ranking.model_copy(update={"profiles": []})})
    rank_stage_module.rank_floor = timed(rank_stage_module.rank_floor)  # type: ignore[assignment]
    shares: list[float] = []
    ratios: list[float] = []
    cli: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as scratch:
        ranked_profile, unranked_profile = profiles(Path(args.profile), args.budget, Path(scratch))
        for case in cases:
            tree = Path(scratch) / case["id"]
            tree.mkdir()
            with tarfile.open(bench / case["tree"]) as archive:
                archive.extractall(tree, filter="data")
            assemble(ranked, tree, case)  # fills the projection cache, untimed
            for _ in range(args.rounds):
                in_ranking[0] = 0.0
                total = assemble(ranked, tree, case)
                stage = in_ranking[0]
                plain = assemble(unranked, tree, case)
                shares.append(stage / total)
                ratios.append(total / plain)
                print(f"{case['id']:<24} ranked {total:.3f}s (stage {stage:.3f}s) unranked {plain:.3f}s", flush=True)
            if args.cli:
                cli_cpu(ranked_profile, tree, case)  # the CLI's own projection cache, filled untimed
                for _ in range(args.rounds):
                    cli.append((cli_cpu(ranked_profile, tree, case), cli_cpu(unranked_profile, tree, case)))
                    print(f"{case['id']:<24} lychd assemble CPU ranked {cli[-1][0]:.3f}s unranked {cli[-1][1]:.3f}s")
    print(
        f"{len(cases)} cases x {args.rounds} rounds at {args.budget} tokens: ranking stage median "
        f"{statistics.median(shares):.1%} of a warm ranked assemble (max {max(shares):.1%}); "
        f"ranked / unranked median {statistics.median(ratios):.2f}x"
    )
    if cli:
        ranked_cli = statistics.median(r for r, _ in cli)
        plain_cli = statistics.median(u for _, u in cli)
        paired = statistics.median(r / u for r, u in cli)
        print(
            f"warm lychd assemble processes: median CPU ranked {ranked_cli:.3f}s, unranked {plain_cli:.3f}s, "
            f"{ranked_cli / plain_cli:.2f}x (paired median {paired:.2f}x)"
        )


if __name__ == "__main__":
    main()
