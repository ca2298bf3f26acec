"""The ``lychd`` command. Exit codes: 0 ok, 1 refused with a typed error, 2 usage."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from rich.markup import escape

from lychd_core import __version__
from lychd_core.cli.output import err_console
from lychd_core.errors import LychdError

# Each module exposes ``add_parser(subparsers)`` and sets ``func`` on its parser.
COMMAND_MODULES: tuple[str, ...] = (
    "lychd_core.cli.plugins_cmd",
    "lychd_core.cli.config_cmd",
    "lychd_core.cli.select_cmd",
    "lychd_core.cli.memory_cmd",
    "lychd_core.cli.project_cmd",
    "lychd_core.cli.assemble_cmd",
    "lychd_core.cli.cut_cmd",
    "lychd_core.cli.vault_cmd",
    "lychd_core.cli.rank_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lychd",
        description="Bounded, hashed, explainable context for LLM agent model calls.",
    )
    parser.add_argument("--version", action="version", version=f"lychd {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args))
    except LychdError as exc:
        err_console.print(f"[bold red]error:[/] {type(exc).__name__}: {escape(str(exc))}", soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        err_console.print("interrupted")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
