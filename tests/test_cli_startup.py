"""The ``lychd`` command starts lazily: no subcommand module is imported for ``--help``
or ``--version``, and a command imports only its own module (issue 23). Speed itself
lives in ``benchmarks/bench_startup.py``; these tests check the import structure."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from lychd_core.cli import COMMANDS, build_parser, chosen_command

PROBE = """
import json, sys
from lychd_core.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("lychd_core", "rich", "pluggy")))))
"""


def imported_by(*arguments: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *arguments], capture_output=True, text=True, check=True, timeout=600
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def command_modules(modules: set[str]) -> set[str]:
    return {name for name in modules if name.endswith("_cmd")}


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_top_level_flags_import_no_subcommand_nor_the_pipeline(flag: str) -> None:
    modules = imported_by(flag)
    assert command_modules(modules) == set()
    heavy = {"lychd_core.projection", "lychd_core.graph", "lychd_core.assembly", "lychd_core.registry", "pluggy"}
    assert modules.isdisjoint(heavy), modules & heavy


def test_a_command_imports_only_its_own_module() -> None:
    modules = imported_by("config", "schema")
    assert command_modules(modules) == {"lychd_core.cli.config_cmd"}
    assert "lychd_core.assembly" not in modules
    assert "lychd_core.projection.projector" not in modules


def test_every_summary_matches_its_modules_own_help() -> None:
    parser = build_parser(every=True)
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {action.dest: action.help for action in subparsers._choices_actions}
    assert helps == {name: info.summary for name, info in COMMANDS.items()}


def test_the_chosen_command_is_the_first_non_option() -> None:
    assert chosen_command(["--version"]) is None
    assert chosen_command(["assemble", "--query", "plugins"]) == "assemble"
    assert chosen_command(["nosuch", "plugins"]) is None


def test_an_unknown_command_is_a_usage_error_listing_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    from lychd_core.cli import main

    with pytest.raises(SystemExit) as raised:
        main(["assmble"])
    assert raised.value.code == 2
    assert "assemble" in capsys.readouterr().err
