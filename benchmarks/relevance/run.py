"""Relevance benchmark runner for `lychd assemble` (standard library only).

This copy extends the shared runner (../shared/bench/relevance/run.py, read-only) with
budgets of 2k and 4k tokens, a full-view recall column (gold files selected as their
full projection, not a coarser view), a definitions recall column (gold files shown with
their definitions: the full projection, or a view that still lists every definition with
its parameters, `signatures` or a verbatim file's `outline`; never `names`) and Acc@1
(the best-ranked gold file is ranked first), read from each run's --json
`ranking.entries`; its cases and trees are the shared ones (--bench DIR). From the checkout root:

    python benchmarks/relevance/run.py --out after.jsonl --limit 10
    python benchmarks/relevance/run.py --summarize after.jsonl before.jsonl

The shared runner's description follows.

From the lychd-core checkout root, with `lychd` installed:

    python ../shared/bench/relevance/run.py --out results.jsonl
    python ../shared/bench/relevance/run.py --out quick.jsonl --limit 5      # 5 cases per repo
    python ../shared/bench/relevance/run.py --summarize results.jsonl \
        ../shared/bench/relevance/peers/results/aider.jsonl   # side by side with a peer

For every case (cases.json) and budget (8k, 16k, 32k tokens) it extracts the case's
tree (trees/<repo>-<parent12>.tar.xz: the package's .py files at the commit's parent)
into a temporary directory and runs

    lychd assemble --config CFG --workspace TMP --material PACKAGE_DIR --query QUERY --json

where CFG is profiles/default.toml (or --profile) with only governors.char_cap set to
3 x tokens, written to a temporary file. A gold file counts as found when a node in
plan.selected names it (key "L2:codex:<path>:<profile>", any profile or resolution).
Every run is cold unless --warm: lychd's state directory (the projection cache) is
removed first. Wall time is the whole CLI process (interpreter start and imports
included); CPU time is its user + system time.

Prints one line per run, then a table per repo and budget (mean recall, all-gold
rate, median wall seconds); writes one JSON line per run to --out as it goes.
Exit status: 0 when every run produced a context, 1 when some runs failed, 2 when
lychd's JSON could not be understood (the run stops at the first such reply unless
--keep-going).
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

try:
    import resource
except ImportError:  # not on Windows: CPU time is then not reported
    resource = None  # type: ignore[assignment]

try:
    import tomllib
except ImportError:  # Python < 3.11: the config is still rewritten, only not re-checked
    tomllib = None  # type: ignore[assignment]

REPO = Path(__file__).resolve().parents[2]
_SHARED = [REPO.parent / "shared" / "bench" / "relevance", REPO.parent.parent / "shared" / "bench" / "relevance"]
HERE = next((p for p in _SHARED if (p / "cases.json").is_file()), _SHARED[0])
"""The shared benchmark folder (cases.json, trees/): beside the checkout, or beside its worktree folder."""
CASES = HERE / "cases.json"
BUDGETS = [2000, 4000, 8000, 16000, 32000]
CHARS_PER_TOKEN = 3
CODEX = "L2:codex:"


class ShapeError(Exception):
    """lychd's --json reply does not have the shape this runner reads."""


# ---------------------------------------------------------------- cases and trees


def load_cases(repos: str | None = None, ids: str | None = None, limit: int | None = None) -> list[dict]:
    cases = json.loads(CASES.read_text(encoding="utf-8"))["cases"]
    if repos:
        cases = [c for c in cases if c["repo"] in repos.split(",")]
    if ids:
        cases = [c for c in cases if c["id"] in ids.split(",")]
    if limit is not None:
        seen: dict[str, int] = {}
        kept = []
        for c in cases:
            seen[c["repo"]] = seen.get(c["repo"], 0) + 1
            if seen[c["repo"]] <= limit:
                kept.append(c)
        cases = kept
    return cases


def extract_tree(case: dict, dest: Path) -> list[str]:
    """Unpack the case's tree into dest; return its file paths (the candidate pool), sorted."""
    with tarfile.open(HERE / case["tree"]) as tar:
        names = sorted(m.name for m in tar.getmembers() if m.isfile())
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
        else:  # Python without extraction filters; the archives hold plain files only
            tar.extractall(dest)
    missing = [g for g in case["gold"] if g not in names]
    if missing:
        raise RuntimeError(f"{case['id']}: tree lacks gold files {missing}")
    return names


def score(gold: list[str], present: set[str]) -> dict:
    found = [g for g in gold if g in present]
    return {"found": found, "recall": len(found) / len(gold), "all_gold": len(found) == len(gold)}


# ---------------------------------------------------------------- lychd config


def budget_config(profile_text: str, tokens: int) -> str:
    """The profile with [governors] char_cap = 3 x tokens; every other line unchanged."""
    cap = tokens * CHARS_PER_TOKEN
    lines = profile_text.splitlines(keepends=True)
    header = re.compile(r"^\s*\[\s*governors\s*\]\s*(#.*)?$")
    table = re.compile(r"^\s*\[")
    key = re.compile(r"^(\s*char_cap\s*=\s*)([^#\n]*?)(\s*(#.*)?)$")
    start = next((i for i, ln in enumerate(lines) if header.match(ln.rstrip("\r\n"))), None)
    if start is None:
        lines.append(f"\n[governors]\nchar_cap = {cap}\n")
    else:
        end = next((i for i in range(start + 1, len(lines)) if table.match(lines[i])), len(lines))
        for i in range(start + 1, end):
            m = key.match(lines[i].rstrip("\r\n"))
            if m:
                eol = lines[i][len(lines[i].rstrip("\r\n")) :]
                lines[i] = f"{m.group(1)}{cap}{m.group(3)}{eol}"
                break
        else:
            lines.insert(start + 1, f"char_cap = {cap}\n")
    text = "".join(lines)
    if tomllib is not None:
        parsed = tomllib.loads(text)
        if parsed.get("governors", {}).get("char_cap") != cap:
            raise SystemExit(f"could not set governors.char_cap = {cap} in the profile")
    return text


def state_dir_name(profile_text: str) -> str:
    if tomllib is not None:
        try:
            return str(tomllib.loads(profile_text).get("stores", {}).get("state_dir", ".lychd"))
        except tomllib.TOMLDecodeError as exc:
            raise SystemExit(f"the profile is not valid TOML: {exc}") from exc
    return ".lychd"


# ---------------------------------------------------------------- reading lychd's reply


def parse_reply(stdout: str) -> dict:
    try:
        return json.loads(stdout)
    except json.JSONDecodeError:
        pass
    # tolerate lines printed before the JSON document (warnings, notices)
    for i, line in enumerate(stdout.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads("\n".join(stdout.splitlines()[i:]))
            except json.JSONDecodeError:
                break
    head = stdout.strip()[:300] or "(empty)"
    raise ShapeError(f"stdout is not a JSON document; it starts: {head!r}")


def node_key(node: object) -> str | None:
    if isinstance(node, str):
        return node
    if isinstance(node, dict):
        for k in ("key", "id", "node"):
            if isinstance(node.get(k), str):
                return node[k]
    return None


def file_of(rest: str, files: list[str]) -> str | None:
    """The longest known path that `rest` (a key after its prefix) starts with, as a whole segment."""
    best = None
    for p in files:
        if (
            rest.startswith(p)
            and (len(rest) == len(p) or rest[len(p)] in ":#@[ ")
            and (best is None or len(p) > len(best))
        ):
            best = p
    return best


def selected_files(data: dict, files: list[str]) -> tuple[dict[str, str], list[str], str]:
    """({file: node key}, codex keys naming no known file, how files were matched)."""
    plan = data.get("plan") if isinstance(data, dict) else None
    selected = plan.get("selected") if isinstance(plan, dict) else None
    if not isinstance(selected, list):
        keys = sorted(data) if isinstance(data, dict) else type(data).__name__
        plan_keys = sorted(plan) if isinstance(plan, dict) else None
        raise ShapeError(
            "expected a list at plan.selected (node keys such as 'L2:codex:<path>:<profile>'); "
            f"top-level keys: {keys}; plan keys: {plan_keys}"
        )
    keys = [node_key(n) for n in selected]
    if any(k is None for k in keys):
        bad = next(n for n, k in zip(selected, keys, strict=False) if k is None)
        raise ShapeError(f"plan.selected holds an entry that is neither a key string nor has 'key'/'id': {bad!r:.200}")
    found: dict[str, str] = {}
    unknown: list[str] = []
    for k in keys:
        if k.startswith(CODEX):
            f = file_of(k[len(CODEX) :], files)
            if f is None:
                unknown.append(k)
            else:
                found.setdefault(f, k)
    if found:
        return found, unknown, "codex-key"
    if unknown:
        raise ShapeError(f"codex node keys name no file of the tree, e.g. {unknown[0]!r}")
    # no L2:codex: keys at all: fall back to any key that names a tree file as a ':'-segment
    for k in keys:
        for seg_start in [m.end() for m in re.finditer(":", k)]:
            f = file_of(k[seg_start:], files)
            if f:
                found.setdefault(f, k)
                break
    if found:
        return found, [], "path-in-key"
    return found, [], "none"


def explanation_for(data: dict, key: str | None, path: str) -> dict | None:
    ex = data.get("plan", {}).get("explanations")
    if not isinstance(ex, dict):
        return None
    if key and isinstance(ex.get(key), dict):
        return ex[key]
    for k, v in sorted(ex.items()):
        if isinstance(v, dict) and (k.startswith(f"{CODEX}{path}:") or k == f"{CODEX}{path}"):
            return v
    return None


def small(d: dict | None) -> dict | None:
    """An explanation without bulky values, for the per-run JSON line."""
    if d is None:
        return None
    return {k: v for k, v in d.items() if not isinstance(v, (str, list, dict)) or len(json.dumps(v)) <= 400}


def view_of(key: str | None) -> str | None:
    """``full`` for a file's own node, else the name of the coarser view (``signatures``, ``names``, ``outline``)."""
    if key is None:
        return None
    return key.rsplit("#", 1)[1] if "#" in key else "full"


def gold_ranks(data: dict, gold: list[str]) -> dict[str, int | None]:
    """Each gold file's rank (1 = first) in the reply's ranking entries; None when it was not ranked."""
    entries = (data.get("ranking") or {}).get("entries") if isinstance(data, dict) else None
    ranks: dict[str, int | None] = {g: None for g in gold}
    for entry in entries if isinstance(entries, list) else ():
        path, rank = entry.get("path"), entry.get("rank")
        if path in ranks and isinstance(rank, int) and (ranks[path] is None or rank < ranks[path]):
            ranks[path] = rank
    return ranks


DEFINITION_VIEWS = frozenset({"full", "outline", "signatures"})
"""Views that show every definition of a file with its parameters (``names`` shows names only)."""


def recall_in_views(row: dict, views: frozenset[str]) -> float | None:
    """Share of gold files lychd shows in one of ``views``; for the peers, aider's files listed
    with definition lines and BM25's outlines (each peer has one view)."""
    gold = row.get("gold") or []
    if not gold:
        return None
    if "gold_views" in row:
        return sum(1 for g in gold if row["gold_views"].get(g) in views) / len(gold)
    if "found_with_defs" in row:
        return len(row["found_with_defs"]) / len(gold)
    if row.get("system") == "bm25":
        return len(row.get("found", [])) / len(gold)
    nodes = row.get("gold_nodes")
    if isinstance(nodes, dict):
        return sum(1 for g in gold if view_of(nodes.get(g)) in views) / len(gold)
    return None


def full_view_recall(row: dict) -> float | None:
    """Share of gold files shown whole: lychd's full projection, aider's definitions, BM25's outline."""
    return recall_in_views(row, frozenset({"full"}))


def definitions_recall(row: dict) -> float | None:
    """Share of gold files shown with their definitions: full projection, outline or signatures."""
    return recall_in_views(row, DEFINITION_VIEWS)


def acc_at_1(row: dict) -> float | None:
    """1 when the best-ranked gold file is ranked first (BM25's gold_rank is 0-based)."""
    ranks = row.get("gold_rank")
    if not isinstance(ranks, dict):
        return None
    known = [r for r in ranks.values() if isinstance(r, int)]
    first = 0 if row.get("system") == "bm25" else 1
    return float(bool(known) and min(known) == first)


# ---------------------------------------------------------------- one run


def run_one(
    cmd: list[str], timeout: float
) -> tuple[subprocess.CompletedProcess | None, float, float | None, str | None]:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN) if resource else None
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        err = None
    except subprocess.TimeoutExpired:
        proc, err = None, f"timed out after {timeout:g}s"
    except OSError as exc:
        proc, err = None, f"could not start {cmd[0]!r}: {exc}"
    wall = time.perf_counter() - t0
    cpu = None
    if resource:
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return proc, wall, cpu, err


def measure(case: dict, tokens: int, cfg: Path, tree: Path, files: list[str], args, state: str) -> dict:
    cmd = [
        *args.lychd_cmd,
        "assemble",
        "--config",
        str(cfg),
        "--workspace",
        str(tree),
        "--material",
        case["package_dir"],
        "--query",
        case["query"],
        "--json",
        *args.lychd_arg,
    ]
    shutil.rmtree(tree / state, ignore_errors=True)
    if args.warm:
        run_one(cmd, args.timeout)
    proc, wall, cpu, err = run_one(cmd, args.timeout)
    row = {
        "system": "lychd",
        "case": case["id"],
        "repo": case["repo"],
        "budget": tokens,
        "gold": case["gold"],
        "time_s": round(wall, 3),
        "cpu_s": None if cpu is None else round(cpu, 3),
        "warm": args.warm,
    }
    if err is None and proc.returncode != 0:
        err = f"exit {proc.returncode}: {proc.stderr.strip()[-800:]}"
    if err:
        row.update({"error": err, "found": [], "recall": 0.0, "all_gold": False})
        return row
    data = parse_reply(proc.stdout)  # ShapeError propagates
    found, unknown, how = selected_files(data, files)
    row.update(score(case["gold"], set(found)))
    row["selected_files"] = sorted(found)
    row["gold_nodes"] = {g: found.get(g) for g in case["gold"]}
    row["gold_views"] = {g: view_of(found.get(g)) for g in case["gold"]}
    row["gold_rank"] = gold_ranks(data, case["gold"])
    row["gold_explanations"] = {g: small(explanation_for(data, found.get(g), g)) for g in case["gold"]}
    if unknown:
        row["unmatched_codex_keys"] = unknown[:20]
    if how != "codex-key":
        row["matched_by"] = how
    lc, gov = data.get("layer_chars"), data.get("governed")
    if isinstance(lc, dict) and "codex" in lc:
        row["codex_chars"] = lc["codex"]
    if isinstance(gov, dict):
        row.update({k: gov[k] for k in ("used_chars", "char_cap") if k in gov})
    return row


# ---------------------------------------------------------------- tables


def table(rows: list[dict]) -> str:
    systems = list(dict.fromkeys(r.get("system", "?") for r in rows))
    repos = list(dict.fromkeys(r["repo"] for r in rows))
    budgets = sorted({r["budget"] for r in rows})
    multi = len(systems) > 1
    head = (
        "| repo | budget | "
        + ("system | " if multi else "")
        + "n | mean recall | full-view recall | definitions recall | Acc@1 | all-gold | "
        + "median wall s | median CPU s | errors |"
    )
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    for repo in repos + (["all"] if len(repos) > 1 else []):
        for t in budgets:
            for s in systems:
                rs = [
                    r
                    for r in rows
                    if (repo == "all" or r["repo"] == repo) and r["budget"] == t and r.get("system", "?") == s
                ]
                if not rs:
                    continue
                cpu = [r["cpu_s"] for r in rs if r.get("cpu_s") is not None]
                full = [v for v in map(full_view_recall, rs) if v is not None]
                defs = [v for v in map(definitions_recall, rs) if v is not None]
                acc = [v for v in map(acc_at_1, rs) if v is not None]
                out.append(
                    f"| {repo} | {t // 1000}k | "
                    + (f"{s} | " if multi else "")
                    + f"{len(rs)} | {statistics.mean(r['recall'] for r in rs):.3f} | "
                    + (f"{statistics.mean(full):.3f} | " if full else "- | ")
                    + (f"{statistics.mean(defs):.3f} | " if defs else "- | ")
                    + (f"{statistics.mean(acc):.3f} | " if acc else "- | ")
                    + f"{statistics.mean(bool(r['all_gold']) for r in rs):.3f} | "
                    f"{statistics.median(r['time_s'] for r in rs):.2f} | "
                    + (f"{statistics.median(cpu):.2f}" if cpu else "-")
                    + f" | {sum(1 for r in rs if r.get('error'))} |"
                )
    return "\n".join(out)


def read_jsonl(paths: list[str]) -> list[dict]:
    rows = []
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    return rows


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--system", default="lychd", help="the system name written in each row (default: lychd)")
    ap.add_argument("--out", help="write one JSON line per run here (required unless --summarize)")
    ap.add_argument("--limit", type=int, metavar="N", help="only the first N cases of each repo")
    ap.add_argument(
        "--lychd", default="lychd", metavar="CMD", help="the lychd command, split like a shell would (default: lychd)"
    )
    ap.add_argument(
        "--lychd-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument appended to every `lychd assemble` (repeat; e.g. --lychd-arg=--role=writer)",
    )
    ap.add_argument(
        "--profile",
        default="profiles/default.toml",
        help="base configuration (default: profiles/default.toml under the current directory)",
    )
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)), help="token budgets, comma-separated")
    ap.add_argument("--repo", help="only these repos (comma-separated)")
    ap.add_argument("--case", help="only these case ids (comma-separated)")
    ap.add_argument(
        "--warm", action="store_true", help="time a second run after an untimed one that fills the projection cache"
    )
    ap.add_argument("--timeout", type=float, default=600, help="seconds per lychd run (default 600)")
    ap.add_argument(
        "--keep-going", action="store_true", help="record a reply that cannot be understood as an error and continue"
    )
    ap.add_argument(
        "--summarize", nargs="+", metavar="JSONL", help="print the tables for existing result files and exit (no runs)"
    )
    args = ap.parse_args(argv)

    if args.summarize:
        print(table(read_jsonl(args.summarize)))
        return 0
    if not args.out:
        ap.error("--out is required")
    args.lychd_cmd = shlex.split(args.lychd)
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]

    profile = Path(args.profile)
    if not profile.is_file():
        raise SystemExit(f"no profile at {profile.resolve()}: run from the lychd-core checkout root or pass --profile")
    profile_text = profile.read_text(encoding="utf-8")
    state = state_dir_name(profile_text)

    try:
        ver = subprocess.run([*args.lychd_cmd, "--version"], capture_output=True, text=True, timeout=120)
    except OSError as exc:
        raise SystemExit(f"cannot run {args.lychd!r}: {exc} (install lychd or pass --lychd)") from exc
    version = (ver.stdout or ver.stderr).strip() or "unknown"

    cases = load_cases(args.repo, args.case, args.limit)
    if not cases:
        raise SystemExit("no cases selected")
    print(
        f"{version}; {len(cases)} cases x {len(budgets)} budgets; profile {profile}; "
        f"{'warm' if args.warm else 'cold'} runs",
        flush=True,
    )

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    shape_errors = 0
    with tempfile.TemporaryDirectory(prefix="lychd-relevance-") as tmp, out.open("w", encoding="utf-8") as fh:
        cfgs = {}
        for t in budgets:
            cfgs[t] = Path(tmp) / f"lychd_{t}.toml"
            cfgs[t].write_text(budget_config(profile_text, t), encoding="utf-8")
        for case in cases:
            tree = Path(tmp) / "tree"
            shutil.rmtree(tree, ignore_errors=True)
            tree.mkdir()
            files = extract_tree(case, tree)
            for t in budgets:
                try:
                    row = measure(case, t, cfgs[t], tree, files, args, state)
                except ShapeError as exc:
                    shape_errors += 1
                    msg = (
                        f"\n*** lychd's --json reply was not understood ({case['id']}, {t} tokens):\n"
                        f"*** {exc}\n*** This runner reads plan.selected (node keys 'L2:codex:<path>:<profile>');"
                        f" update run.py's selected_files() if the reply changed shape.\n"
                    )
                    print(msg, file=sys.stderr, flush=True)
                    row = {
                        "system": "lychd",
                        "case": case["id"],
                        "repo": case["repo"],
                        "budget": t,
                        "gold": case["gold"],
                        "time_s": 0.0,
                        "cpu_s": None,
                        "found": [],
                        "recall": 0.0,
                        "all_gold": False,
                        "error": f"reply not understood: {exc}",
                    }
                    if not args.keep_going:
                        fh.write(json.dumps(row, sort_keys=True) + "\n")
                        print(
                            "stopping (pass --keep-going to record such runs as errors and continue)", file=sys.stderr
                        )
                        return 2
                row["lychd_version"] = version
                row["system"] = args.system
                rows.append(row)
                fh.write(json.dumps(row, sort_keys=True) + "\n")
                fh.flush()
                note = row.get("error", "")[:160] or (f"[{row['matched_by']}]" if row.get("matched_by") else "")
                print(f"{case['id']:<22} {t:>6} recall={row['recall']:.2f} t={row['time_s']:.2f}s {note}", flush=True)
            shutil.rmtree(tree, ignore_errors=True)
            if case is cases[0] and len(cases) > 1 and all(r.get("error") for r in rows):
                print(
                    f"\nevery run of the first case failed; stopping (first error: {rows[0]['error'][:300]})",
                    file=sys.stderr,
                )
                return 1
    print()
    print(table(rows))
    failed = sum(1 for r in rows if r.get("error"))
    if failed:
        print(f"\n{failed} of {len(rows)} runs failed (see 'error' in {out})")
    if shape_errors:
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
