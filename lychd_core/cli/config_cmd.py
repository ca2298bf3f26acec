"""``lychd config init|validate|schema``."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from rich.table import Table

from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.config import LychdConfig, check_config
from lychd_core.config.discovery import config_source
from lychd_core.config.template import commented_config
from lychd_core.errors import ConfigError
from lychd_core.registry import get_registry


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("config", help="write, validate or describe a configuration")
    actions = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)

    init = actions.add_parser(
        "init", help="write the neutral default configuration, commented (every command here then finds it)"
    )
    init.add_argument("--output", "-o", default="lychd.toml", help="file to write (default: lychd.toml)")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    add_json_flag(init)
    init.set_defaults(func=run_init)

    validate = actions.add_parser("validate", help="check a configuration against the installed plugins")
    validate.add_argument(
        "file",
        nargs="?",
        help="TOML configuration file (default: the one commands here use: lychd.toml or [tool.lychd] "
        "found from here upward)",
    )
    add_json_flag(validate)
    validate.set_defaults(func=run_validate)

    schema = actions.add_parser("schema", help="print the JSON Schema (for editor completion)")
    add_json_flag(schema)
    schema.set_defaults(func=run_schema)


def run_init(args: argparse.Namespace) -> int:
    target = Path(args.output)
    write_new_file(target, commented_config(), force=args.force)
    if args.json:
        emit_json({"written": str(target)})
    else:
        console.print(f"wrote {plain(str(target))}")
    return 0


def write_new_file(target: Path, text: str, *, force: bool) -> None:
    """Write ``text`` to ``target`` atomically (a temporary file beside it, then a rename).

    An existing regular file (or symlink) is replaced only with ``force``; a directory,
    FIFO, device or socket never is, force or not. Nothing is left half-written.
    """
    try:
        info = target.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise ConfigError(f"{target}: cannot inspect: {exc.strerror or exc}") from None
    if info is not None:
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
            raise ConfigError(f"{target} exists and is not a regular file; lychd never replaces it, even with --force")
        if not force:
            raise ConfigError(f"{target} exists; pass --force to overwrite it")
    folder = target.parent
    if not folder.is_dir():
        raise ConfigError(f"{target}: the folder {folder} does not exist (or is not a folder); create it first")
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise ConfigError(f"{target}: cannot write in {folder}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise ConfigError(f"{target}: cannot write: {exc.strerror or exc}") from None


def run_validate(args: argparse.Namespace) -> int:
    source = config_source(args.file)
    config = source.load()
    check_config(config, get_registry())
    pins = _pins(config)
    if args.json:
        emit_json({"file": None if source.path is None else str(source.path), "valid": True, "pins": pins})
        return 0
    table = Table(title=f"{plain(source.describe())}: valid")
    for column in ("where", "plugin", "revision"):
        table.add_column(column)
    for pin in pins:
        table.add_row(plain(pin["where"]), plain(pin["name"]), str(pin["revision"]))
    console.print(table)
    return 0


def _pins(config: LychdConfig) -> list[dict[str, Any]]:
    pins: list[dict[str, Any]] = [
        {"where": f"projection {media_type}", "name": rule.profile, "revision": rule.revision}
        for media_type, rule in sorted(config.projection.rules.items())
    ]
    pins.append({"where": "role policy", "name": config.role_policy.name, "revision": config.role_policy.revision})
    if config.privacy_profile is not None:
        pin = config.privacy_profile
        pins.append({"where": "privacy profile", "name": pin.name, "revision": pin.revision})
    pins.extend({"where": "compressor", "name": p.name, "revision": p.revision} for p in config.compression.compressors)
    return pins


def run_schema(args: argparse.Namespace) -> int:
    print(json.dumps(LychdConfig.model_json_schema(), indent=2, sort_keys=True))
    return 0
