"""Shared console output: rich for people, canonical-ish JSON for machines."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def emit_json(value: Any) -> None:
    """Print ``value`` as indented, key-sorted JSON on stdout."""
    sys.stdout.write(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def add_json_flag(parser: Any) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of tables")


def plain(text: str) -> str:
    """Escape rich markup in text that comes from data."""
    return escape(text)
