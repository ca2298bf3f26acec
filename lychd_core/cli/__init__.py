"""The ``lychd`` command. Exit codes: 0 ok, 1 refused with a typed error, 2 usage."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from lychd_core import __version__
from lychd_core.cli.boundary import ensure_standard_streams, run_guarded, undecodable_argument
from lychd_core.cli.output import err_console

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
    """Run one command; every outcome maps to an exit code in ``boundary.run_guarded``."""
    ensure_standard_streams()
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    bad = undecodable_argument(arguments)
    if bad is not None:
        parser.print_usage(sys.stderr)
        err_console.print(f"lychd: error: argument {bad + 1} is not valid UTF-8 text: {arguments[bad]!a}")
        return 2
    args = parser.parse_args(arguments)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    return run_guarded(lambda: int(func(args)))


if __name__ == "__main__":
    raise SystemExit(main())
