"""The ``lychd`` command. Exit codes: 0 ok, 1 refused with a typed error, 2 usage.

Subcommands load lazily (see ``commands.py``): ``--help`` and ``--version`` import none.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from lychd_core.cli.commands import COMMANDS, CommandInfo, build_parser, chosen_command

__all__ = ["COMMANDS", "CommandInfo", "build_parser", "chosen_command", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every outcome maps to an exit code in ``boundary.run_guarded``."""
    from lychd_core.cli.boundary import ensure_standard_streams, run_guarded, undecodable_argument

    ensure_standard_streams()
    arguments = list(sys.argv[1:] if argv is None else argv)
    bad = undecodable_argument(arguments)
    if bad is not None:
        from lychd_core.cli.output import err_console

        build_parser().print_usage(sys.stderr)
        err_console.print(f"lychd: error: argument {bad + 1} is not valid UTF-8 text: {arguments[bad]!a}")
        return 2
    parser = build_parser(chosen_command(arguments))
    args = parser.parse_args(arguments)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    return run_guarded(lambda: int(func(args)))


if __name__ == "__main__":
    raise SystemExit(main())
