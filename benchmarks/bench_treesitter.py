"""Tree-sitter structure outlines vs the bare tree-sitter parse, side by side in one run.

A deterministic generator writes a TypeScript tree (default 200 files; ``--full``: the
issue's 2,000 files), each a realistic module: imports, an interface, a type alias, an
enum, two classes with fields and methods, exported functions with bodies. It reports:

* bare ``tree_sitter.Parser.parse`` of every file, in this process (the anchor);
* cold projection through the Projector (read, verify, media type, rule, parse,
  outline, render, block, cache write) and its ratio over the bare parse (goal <= 1.5);
* the profile alone (no Projector: parse, outline, render) over the bare parse, to show
  where the time goes;
* warm projection (a second run over the unchanged tree: a new Projector and cache object
  on a cold run's cache file, every reference a hit) and its speed-up over cold (goal >= 50);
  the cold runs start once the generated files are older than the racy margin (2 s), as in
  any repository not edited that instant, so that a run record can be written (a sleep,
  not CPU time);
* a check that every generated top-level declaration is in the outline with its line.

Times are CPU seconds of this process (``time.process_time``), best of ``--repeat``
runs; wall time is printed beside them.

``--tree DIR`` measures a real tree instead of the generated one (every ``.ts`` file under
DIR but ``.d.ts``), for example a package's own sources unpacked from its registry tarball
(``npm pack rxjs@7.8.2`` and ``package/src``); it has no oracle check.

Run: python benchmarks/bench_treesitter.py [--full] [--files N] [--tree DIR]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lychd_structure_treesitter import PROFILES, StructureTreeSitterOptions
from lychd_structure_treesitter.languages import parser

from lychd_core.config import default_config, parse_config
from lychd_core.digests import sha256_digest
from lychd_core.families import SourceMaterial
from lychd_core.projection.fingerprints import RACY_MARGIN_NS
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Contribution, Projector
from lychd_core.registry import get_registry
from lychd_core.stores.sqlite.cache import ProjectionCache

WORDS = [
    "account",
    "order",
    "item",
    "price",
    "stock",
    "user",
    "cart",
    "ledger",
    "report",
    "queue",
    "batch",
    "token",
    "route",
    "event",
    "store",
    "cache",
]


def module(index: int, rng: random.Random) -> tuple[str, list[tuple[str, int]]]:
    """One TypeScript module and its top-level declarations (name, line)."""
    a, b, c = (rng.choice(WORDS) for _ in range(3))
    cap = lambda word: word[0].upper() + word[1:]  # noqa: E731
    names = {
        "iface": f"{cap(a)}{index}",
        "alias": f"{cap(b)}Id{index}",
        "enum": f"{cap(c)}State{index}",
        "base": f"Base{cap(a)}{index}",
        "service": f"{cap(b)}Service{index}",
        "fn": f"compute{cap(c)}{index}",
        "arrow": f"format{cap(a)}{index}",
    }
    lines = [
        f'import {{ {cap(a)}{(index + 1) % 9} }} from "./m{(index + 1) % 9}";',
        'import * as util from "../util";',
        "",
        f"/** A {a} as the {b} service sees it. */",
        f"export interface {names['iface']} {{",
        "  readonly id: string;",
        f"  {b}: number;",
        "  tags?: string[];",
        f"  update(delta: Partial<{names['iface']}>): void;",
        "}",
        "",
        f"export type {names['alias']} = string & {{ readonly brand: '{b}' }};",
        "",
        f"export enum {names['enum']} {{ Idle, Busy = 2, Done }}",
        "",
        f"export abstract class {names['base']}<T extends {names['iface']}> {{",
        "  protected readonly items = new Map<string, T>();",
        "  abstract key(item: T): string;",
        "  add(item: T): this {",
        "    this.items.set(this.key(item), item);",
        "    return this;",
        "  }",
        "}",
        "",
        f"/** Keeps {b}s and answers queries about them. */",
        f"export class {names['service']} extends {names['base']}<{names['iface']}> {{",
        f"  private state: {names['enum']} = {names['enum']}.Idle;",
        "  key(item: { id: string }): string { return item.id; }",
    ]
    for method in range(6):
        lines += [
            f"  async {rng.choice(WORDS)}{method}(limit = {rng.randint(1, 99)}): Promise<number[]> {{",
            "    const out: number[] = [];",
            "    for (let i = 0; i < limit; i += 1) {",
            f"      if (i % {rng.randint(2, 7)} === 0) {{ out.push(i * {rng.randint(2, 9)}); }}",
            "      else if (this.items.size > i) { out.push(-i); }",
            "    }",
            f"    this.state = {names['enum']}.Done;",
            "    return util.sorted(out.filter((x) => x !== 0).map((x) => x + limit));",
            "  }",
        ]
    lines += ["}", ""]
    lines += [
        f"export function {names['fn']}(values: readonly number[], weight = {rng.randint(1, 9)}): number {{",
        "  let total = 0;",
        "  for (const value of values) {",
        "    total += value * weight;",
        "    if (total > 1_000_000) { throw new RangeError(`overflow at ${value}`); }",
        "  }",
        "  return total;",
        "}",
        "",
        f"export const {names['arrow']} = (item: {names['iface']}): string =>",
        "  `${item.id}:${item.tags?.join(',') ?? ''}`;",
        "",
    ]
    text = "\n".join(lines)
    declared = []
    for key in ("iface", "alias", "enum", "base", "service", "fn", "arrow"):
        marker = f" {names[key]}"
        line = next(i for i, row in enumerate(lines, 1) if row.startswith("export") and marker in row)
        declared.append((names[key], line))
    return text, declared


def write_tree(root: Path, count: int) -> list[tuple[str, list[tuple[str, int]]]]:
    rng = random.Random(17)
    written = []
    for index in range(count):
        relative = f"src/pkg{index % 40}/mod{index}.ts"
        text, declared = module(index, rng)
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
        written.append((relative, declared))
    return written


def copy_tree(source: Path, root: Path) -> list[tuple[str, list[tuple[str, int]]]]:
    """Every ``.ts`` file under ``source`` but declaration files, copied under ``root``; nothing declared."""
    written: list[tuple[str, list[tuple[str, int]]]] = []
    for path in sorted(source.rglob("*.ts")):
        if path.name.endswith(".d.ts") or not path.is_file():
            continue
        relative = path.relative_to(source).as_posix()
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(path.read_bytes())
        written.append((relative, []))
    if not written:
        raise SystemExit(f"no .ts files under {source}")
    return written


def timed(label: str, action: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of this process (the machine is shared, so wall time wanders with others' load)."""
    start, wall = time.process_time(), time.perf_counter()
    result = action()
    elapsed = time.process_time() - start
    print(f"  {label:<44} {elapsed:9.3f} s cpu  ({time.perf_counter() - wall:7.3f} s wall)", flush=True)
    return elapsed, result


def best(repeat: int, label: str, action: Callable[[], Any]) -> tuple[float, Any]:
    results = [timed(f"{label} (run {n + 1})", action) for n in range(repeat)]
    return min(results, key=lambda pair: pair[0])


def bare_parse(sources: list[bytes]) -> int:
    ts = parser("typescript")
    return sum(not ts.parse(data).root_node.has_error for data in sources)


def profile_only(sources: list[bytes]) -> int:
    profile = next(p for p in PROFILES if p.name == "structure.typescript")
    options = StructureTreeSitterOptions()
    projected = 0
    for data in sources:
        source = SourceMaterial("x.ts", "text/x-typescript", data, sha256_digest(data), 2_000_000, 96_000)
        projected += hasattr(profile.project(source, options), "text")
    return projected


def project(root: Path, refs: list[MaterialRef], state: Path) -> tuple[Projector, list[Contribution]]:
    data = default_config().model_dump(mode="json")
    data["stores"]["state_dir"] = str(state)
    config = parse_config(data)
    workspace = Workspace(root)
    cache = ProjectionCache(config.stores.path_of(config.stores.projection_cache, workspace.root))
    projector = Projector(config, get_registry(), workspace, cache)
    return projector, projector.project_many(refs)


def main() -> int:
    parser_ = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser_.add_argument("--full", action="store_true", help="the issue's 2,000-file tree")
    parser_.add_argument("--files", type=int, default=200, help="tree size without --full (default 200)")
    parser_.add_argument("--repeat", type=int, default=3, help="runs of each cold measure; the best counts")
    parser_.add_argument(
        "--tree",
        type=Path,
        help="measure a real TypeScript tree instead: every .ts file under it but .d.ts, copied "
        "(for example a package's own sources unpacked from its registry tarball); no oracle check",
    )
    args = parser_.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "tree"
        written = copy_tree(args.tree, root) if args.tree else write_tree(root, 2_000 if args.full else args.files)
        count = len(written)
        written_at = time.time()
        sources = [(root / relative).read_bytes() for relative, _ in written]
        origin = f"from {args.tree}" if args.tree else "generated, seed 17"
        print(f"{count} TypeScript files, {sum(map(len, sources)) / 1e6:.1f} MB ({origin})")
        workspace = Workspace(root)
        refs = [MaterialRef.for_current(workspace, relative, required=False) for relative, _ in written]
        get_registry()
        project(root, refs[:2], Path(scratch) / "warmup")  # imports, grammar loading, libmagic
        bare_parse(sources[:2])
        t_bare, parsed = best(args.repeat, "bare tree-sitter parse", lambda: bare_parse(sources))
        t_profile, _ = best(args.repeat, "profile alone (parse, outline, render)", lambda: profile_only(sources))
        # Files changed within the racy margin before a run are not fingerprinted, so no run record could be
        # written: wait (not CPU time) until the tree is as settled as any repository not edited just now.
        time.sleep(max(0.0, written_at + RACY_MARGIN_NS / 1e9 + 0.1 - time.time()))
        runs = [Path(scratch) / f"cold{n}" for n in range(args.repeat)]
        t_cold, (_, cold) = min(
            (
                timed(f"cold projection (run {n + 1})", lambda s=state: project(root, refs, s))
                for n, state in enumerate(runs)
            ),
            key=lambda pair: pair[0],
        )
        # A second run over the unchanged tree: a new Projector and cache object on the first cold run's state.
        t_warm, warm = best(
            args.repeat, "warm projection (a new Projector, cache hits)", lambda: project(root, refs, runs[0])[1]
        )
    assert all(c.cached for c in warm), "warm run was not all cache hits"
    assert [c.digest for c in cold] == [c.digest for c in warm], "warm outcomes differ from cold"
    missing = 0
    for (_, declared), contribution in zip(written, cold, strict=True):
        facts: Any = contribution.facts
        outlined = {(d["name"], d["line"]) for d in facts["definitions"]}
        missing += sum((name, line) not in outlined for name, line in declared)
    print()
    print(f"parsed {parsed} of {count}; projected {sum(c.ok for c in cold)}; declarations missing {missing}")
    print(f"cold / bare tree-sitter parse   {t_cold / t_bare:6.2f}  (goal <= 1.5)")
    print(f"profile alone / bare parse      {t_profile / t_bare:6.2f}")
    print(f"cold / warm                     {t_cold / t_warm:6.1f}x (goal >= 50)")
    return 1 if missing or parsed != count else 0


if __name__ == "__main__":
    raise SystemExit(main())
