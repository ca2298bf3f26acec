"""Cold whole-command CPU of ``lychd assemble`` on real trees: this checkout beside an anchor commit.

Each run is what a user pays the first time: a fresh ``lychd`` process (interpreter
start, imports, plugin loading), an empty state directory (every file projected, the
projection cache and run record written), ranking, selection and the ``--json`` reply.
CPU is the process's user + system time including its children (the structure.python
parser worker), read from ``RUSAGE_CHILDREN`` as ``../shared/bench/relevance/run.py``
does. Both sides run the same command, each with its own ``profiles/default.toml``
(``governors.char_cap`` set to 3 x 8,000 tokens), alternating run by run so that a
change in the machine's load falls on both; the report is the ratio of the medians.

The anchor is a commit of this repository (default: the last one of 2026-11-30, the
state issue 30 compares against). It is exported with ``git archive`` into
``benchmarks/results/anchor-<sha>/`` with its own venv (``pip install -r
requirements.txt``, from the local mirror), once, and reused by later runs. This checkout
runs from a venv made the same way (``benchmarks/results/checkout-venv``, editable, so it
follows the sources; rebuilt when ``requirements.txt`` changes): the development venv also
holds the test suite's toy plugin and every extra, which a user's install does not load.
``--venv current`` times this interpreter's venv instead.

Trees: the first case of each repository in ``../shared/bench/relevance`` (the query is
the case's commit message) and this repository's ``lychd_core`` folder. Bytecode caches
are allowed (``PYTHONDONTWRITEBYTECODE`` is dropped; one untimed run per side writes
them) so that neither side pays compiling its sources; ``--no-bytecode`` keeps the
variable and deletes the editable sources' caches before every run instead.

Run: python benchmarks/bench_cold_assemble.py [--rounds 5] [--anchor SHA | --anchor none]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELEVANCE = next(  # beside the main checkout (/work/shared) or a worktree of it (/work/wt/NAME)
    (p / "shared" / "bench" / "relevance" for p in ROOT.parents[:2] if (p / "shared" / "bench").is_dir()),
    ROOT.parent / "shared" / "bench" / "relevance",
)
ANCHOR = "930a6464f101"  # 2026-11-30 23:59 UTC, the last commit of that day
RESULTS = ROOT / "benchmarks" / "results"
CHAR_CAP = 3 * 8000


@dataclass(frozen=True)
class Tree:
    name: str
    root: Path
    material: str
    query: str


@dataclass(frozen=True)
class Side:
    name: str
    lychd: Path
    checkout: Path
    config: Path


def install_venv(venv: Path, checkout: Path) -> None:
    """A venv at ``venv`` holding what ``checkout``'s ``requirements.txt`` installs, as a user installs it."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "-r", "requirements.txt"], cwd=checkout, check=True)


def anchor_side(sha: str, work: Path) -> Side:
    """The anchor's checkout and venv under benchmarks/results (built once)."""
    full = subprocess.run(["git", "-C", str(ROOT), "rev-parse", sha], capture_output=True, text=True, check=True)
    checkout = RESULTS / f"anchor-{full.stdout.strip()[:12]}"
    lychd = checkout / ".venv" / "bin" / "lychd"
    if not lychd.exists():
        shutil.rmtree(checkout, ignore_errors=True)
        checkout.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", full.stdout.strip()], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(checkout)], input=archive.stdout, check=True)
        install_venv(checkout / ".venv", checkout)
    return Side(f"anchor {sha[:7]}", lychd, checkout, budget_config(checkout, work, "anchor"))


def checkout_side(work: Path) -> Side:
    """This checkout, from a venv installed as a user installs it (``requirements.txt``)."""
    venv = RESULTS / "checkout-venv"
    lychd, stamp = venv / "bin" / "lychd", venv / "requirements.txt"
    wanted = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    if not lychd.exists() or not stamp.exists() or stamp.read_text(encoding="utf-8") != wanted:
        shutil.rmtree(venv, ignore_errors=True)
        install_venv(venv, ROOT)
        stamp.write_text(wanted, encoding="utf-8")
    return Side("this checkout", lychd, ROOT, budget_config(ROOT, work, "now"))


def budget_config(checkout: Path, work: Path, name: str) -> Path:
    """The checkout's own default profile with ``char_cap`` = 3 x 8k tokens (as run.py sets it)."""
    text = (checkout / "profiles" / "default.toml").read_text(encoding="utf-8")
    text, count = re.subn(r"(?m)^char_cap = \d+$", f"char_cap = {CHAR_CAP}", text)
    if count != 1:
        raise SystemExit(f"{checkout}/profiles/default.toml: expected one char_cap line, found {count}")
    path = work / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def trees(work: Path, limit: int) -> list[Tree]:
    found = []
    if (RELEVANCE / "cases.json").is_file():
        seen: set[str] = set()
        for case in json.loads((RELEVANCE / "cases.json").read_text(encoding="utf-8"))["cases"]:
            if case["repo"] in seen:
                continue
            seen.add(case["repo"])
            root = work / case["repo"]
            root.mkdir()
            with tarfile.open(RELEVANCE / case["tree"]) as archive:
                archive.extractall(root, filter="data")
            found.append(Tree(case["repo"], root, case["package_dir"], case["query"]))
    own = work / "lychd-core"
    shutil.copytree(ROOT / "lychd_core", own / "lychd_core", ignore=shutil.ignore_patterns("__pycache__"))
    found.append(Tree("lychd-core", own, "lychd_core", "Why is a cold lychd assemble slower than a warm one?"))
    return found[:limit]


def run_once(side: Side, tree: Tree, env: dict[str, str], drop_bytecode: bool) -> float:
    """One cold run's CPU seconds (this child and the children it waited for)."""
    shutil.rmtree(tree.root / ".lychd", ignore_errors=True)
    if drop_bytecode:
        for cache in side.checkout.glob("**/__pycache__"):
            if ".venv" not in cache.parts:
                shutil.rmtree(cache, ignore_errors=True)
    command = [str(side.lychd), "assemble", "--config", str(side.config), "--workspace", str(tree.root)]
    command += ["--material", tree.material, "--query", tree.query, "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # cwd: an older parser worker (before -P) imports from its working directory, so never run it from a checkout
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tree.root, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or not json.loads(done.stdout).get("plan", {}).get("selected"):
        raise SystemExit(f"{side.name} on {tree.name} failed (exit {done.returncode}): {done.stderr[-600:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed runs per side and tree (median reported)")
    parser.add_argument("--anchor", default=ANCHOR, help="anchor commit, or 'none' to time this checkout alone")
    parser.add_argument("--trees", type=int, default=4, help="how many of the trees to use")
    parser.add_argument("--no-bytecode", action="store_true", help="compile every source on every run")
    parser.add_argument(
        "--venv",
        choices=("install", "current"),
        default="install",
        help="this checkout from a requirements.txt venv (default) or from this interpreter's venv",
    )
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory(prefix="lychd-cold-") as tmp:
        work = Path(tmp)
        current = (
            checkout_side(work)
            if args.venv == "install"
            else Side("this checkout", Path(sys.executable).parent / "lychd", ROOT, budget_config(ROOT, work, "now"))
        )
        sides = [current] + ([] if args.anchor == "none" else [anchor_side(args.anchor, work)])
        ratios = []
        for tree in trees(work, args.trees):
            files = sum(1 for _ in (tree.root / tree.material).rglob("*.py"))
            for side in sides:
                run_once(side, tree, env, args.no_bytecode)  # untimed: bytecode caches, libmagic's database
            times: dict[str, list[float]] = {side.name: [] for side in sides}
            for _ in range(args.rounds):
                for side in sides:
                    times[side.name].append(run_once(side, tree, env, args.no_bytecode))
            medians = {name: statistics.median(values) for name, values in times.items()}
            cells = "  ".join(f"{name} {value:.2f} s" for name, value in medians.items())
            line = f"{tree.name:<10} {files:>3} files  median CPU: {cells}"
            if len(sides) == 2:
                ratios.append(medians[current.name] / medians[sides[1].name])
                line += f"  ratio {ratios[-1]:.2f}"
            print(line, flush=True)
        if ratios:
            print(f"this checkout / anchor: {', '.join(f'{r:.2f}' for r in ratios)} (goal <= 1.00)")
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
