"""``lychd plugins``: every registered plugin with family, revision and origin."""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.registry import get_registry


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("plugins", help="list registered plugins")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    entries = get_registry().all()
    if args.json:
        emit_json([entry.to_json() for entry in entries])
        return 0
    table = Table(title="lychd plugins")
    for column in ("name", "family", "revision", "media types", "distribution", "version"):
        table.add_column(column, overflow="fold", no_wrap=column != "media types")
    for entry in entries:
        table.add_row(
            plain(entry.name),
            entry.family.value,
            str(entry.revision),
            plain(", ".join(entry.media_types) or "-"),
            plain(entry.distribution),
            plain(entry.version),
        )
    console.print(table)
    if not entries:
        console.print("no plugins registered; install lychd plugin distributions (see docs/writing_a_plugin.md)")
    return 0
