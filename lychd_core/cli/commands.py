"""Which subcommands ``lychd`` has, and the parser that lists them without importing them.

pip's ``commands_dict`` pattern: ``COMMANDS`` names each subcommand's module and its
one-line summary, so ``lychd --help`` and ``--version`` import no subcommand and a
command imports only its own module (and what that uses).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from typing import NamedTuple

from lychd_core.version import __version__


class CommandInfo(NamedTuple):
    module: str
    """Module exposing ``add_parser(subparsers)``, which sets ``func`` on its parser."""
    summary: str
    """The ``help`` text that module's parser carries (a test keeps the two equal)."""


COMMANDS: dict[str, CommandInfo] = {
    "plugins": CommandInfo("lychd_core.cli.plugins_cmd", "list registered plugins"),
    "config": CommandInfo("lychd_core.cli.config_cmd", "write, validate or describe a configuration"),
    "select": CommandInfo(
        "lychd_core.cli.select_cmd", "select context from a graph file for one role and explain every node"
    ),
    "memory": CommandInfo("lychd_core.cli.memory_cmd", "add, forget, query and inspect derived memories"),
    "project": CommandInfo(
        "lychd_core.cli.project_cmd", "project files or directories through the configured profiles"
    ),
    "assemble": CommandInfo("lychd_core.cli.assemble_cmd", "assemble one bounded, explained context (the main job)"),
    "cut": CommandInfo("lychd_core.cli.cut_cmd", "prepare or verify an irreversible Privacy Cut of a report"),
    "vault": CommandInfo("lychd_core.cli.vault_cmd", "inspect, purge and rehydrate through the pseudonym-map vault"),
    "rank": CommandInfo("lychd_core.cli.rank_cmd", "rank material for a query with the configured ranking profiles"),
    "cache": CommandInfo("lychd_core.cli.cache_cmd", "prune the projection cache by a declared age"),
}


def chosen_command(arguments: Sequence[str]) -> str | None:
    """The subcommand named in ``arguments``: the first one not an option (the top level
    takes no option with a value)."""
    for argument in arguments:
        if not argument.startswith("-"):
            return argument if argument in COMMANDS else None
    return None


def build_parser(command: str | None = None, *, every: bool = False) -> argparse.ArgumentParser:
    """The parser with ``command`` (or, with ``every``, each command) fully built; the
    others are listed by name and summary only, so their modules are never imported."""
    parser = argparse.ArgumentParser(
        prog="lychd",
        description="Bounded, hashed, explainable context for LLM agent model calls.",
    )
    parser.add_argument("--version", action="version", version=f"lychd {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, info in COMMANDS.items():
        if every or name == command:
            importlib.import_module(info.module).add_parser(subparsers)
        else:
            subparsers.add_parser(name, help=info.summary, add_help=False)
    return parser
