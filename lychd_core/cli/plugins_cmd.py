"""``lychd plugins``: every registered plugin with family, revision and origin."""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence
from typing import Any

from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.registry import RegisteredPlugin, get_registry

MEDIA_INDENT = "      "
MIN_WRAP = 40


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("plugins", help="list registered plugins")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    entries = get_registry().all()
    if args.json:
        emit_json([entry.to_json() for entry in entries])
        return 0
    if not entries:
        console.print("no plugins registered; install lychd plugin distributions (see docs/writing_a_plugin.md)")
        return 0
    for line in listing(entries, console.width):
        console.print(plain(line), soft_wrap=True, highlight=False)
    return 0


def listing(entries: Sequence[RegisteredPlugin], width: int) -> list[str]:
    """Plugins grouped by family, one line each (``name@revision  distribution version``), media
    types wrapped beneath on whole names, so nothing is cut or folded at any width (80 included)."""
    lines: list[str] = []
    families = list(dict.fromkeys(entry.family for entry in entries))
    for family in families:
        members = [entry for entry in entries if entry.family is family]
        pin_width = max(len(entry.pin) for entry in members)
        if lines:
            lines.append("")
        lines.append(f"{family.value} ({len(members)})")
        for entry in members:
            lines.append(f"  {entry.pin:<{pin_width}}  {entry.distribution} {entry.version}")
            if entry.media_types:
                lines += textwrap.wrap(
                    ", ".join(entry.media_types),
                    width=max(MIN_WRAP, width - 1),
                    initial_indent=MEDIA_INDENT,
                    subsequent_indent=MEDIA_INDENT,
                    break_long_words=False,
                    break_on_hyphens=False,
                )
    return lines
