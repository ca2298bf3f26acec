"""``lychd cache prune``: remove projection cache rows stored longer ago than a declared age.

The policy (``projection.cache_prune``): every row stored more than ``--older-than`` ago
goes, in every table, in one transaction; ``--dry-run`` counts them and removes nothing. A
read-only cache (a file this user may not write, a SELECT-only PostgreSQL role) is refused
with ``ReadOnlyCacheError``; a killed prune leaves the cache as it was.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.table import Table

from lychd_core.cli.loading import CONFIG_HELP, command_config
from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.projection.cache_prune import PruneReport, cutoff_of, parse_age
from lychd_core.stores.factory import describe_store, open_projection_cache


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("cache", help="prune the projection cache by a declared age")
    actions = parser.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    prune = actions.add_parser(
        "prune",
        help="remove every cache row stored more than --older-than ago (entries, counts, records)",
        description="Remove every projection cache row stored more than --older-than ago, in one transaction. "
        "A row in use but stored before then goes too: the next run recomputes it once.",
    )
    prune.add_argument("--older-than", required=True, metavar="AGE", help="an age: 45s, 90m, 12h, 30d, 2w (0s: all)")
    prune.add_argument("--dry-run", action="store_true", help="count what would be removed; remove nothing")
    prune.add_argument("--config", help=CONFIG_HELP)
    prune.add_argument("--workspace", default=".", help="workspace root holding the state directory (default: .)")
    add_json_flag(prune)
    prune.set_defaults(func=run_prune)


def run_prune(args: argparse.Namespace) -> int:
    age_s = parse_age(args.older_than)  # a bad age is refused before the cache is opened
    config = command_config(args)
    root = Path(args.workspace)
    store = config.stores.projection_cache
    where = describe_store(config, store, root)
    if store.backend == "sqlite" and not config.stores.path_of(store, root).exists():
        # Opening would create and mark the state directory: a prune in the wrong folder leaves nothing behind.
        return _nothing_to_prune(args, where, age_s)
    cache = open_projection_cache(config, root)
    try:
        report = cache.prune(cutoff_of(age_s), dry_run=args.dry_run)
    finally:
        cache.close()
    if args.json:
        emit_json({"cache": where, "older_than_s": age_s, **report.to_json()})
        return 0
    _print(report, where, args.older_than)
    return 0


def _nothing_to_prune(args: argparse.Namespace, where: str, age_s: int) -> int:
    if args.json:
        emit_json({"cache": where, "exists": False, "older_than_s": age_s, "removed": 0})
    else:
        console.print(f"no projection cache at {plain(where)}: nothing to prune", soft_wrap=True)
    return 0


def _print(report: PruneReport, where: str, age: str) -> None:
    cutoff = datetime.fromtimestamp(report.cutoff_ns / 1e9, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    verb = "would remove" if report.dry_run else "removed"
    table = Table(title=f"lychd cache prune: rows stored before {cutoff} (older than {plain(age)})")
    for column in ("table", verb, "kept"):
        table.add_column(column, overflow="fold")
    for name, count in report.tables.items():
        table.add_row(name, str(count.removed), str(count.kept))
    console.print(table)
    suffix = " (dry run: nothing was removed)" if report.dry_run else ""
    console.print(f"{plain(where)}: {verb} {report.removed} row(s){suffix}", soft_wrap=True)
