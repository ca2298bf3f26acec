"""``lychd config init|validate|schema``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.table import Table

from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.config import LychdConfig, check_config, default_config, dump_config, load_config
from lychd_core.errors import ConfigError
from lychd_core.registry import get_registry


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("config", help="write, validate or describe a configuration")
    actions = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)

    init = actions.add_parser("init", help="write the default configuration")
    init.add_argument("--output", "-o", default="lychd.toml", help="file to write (default: lychd.toml)")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    add_json_flag(init)
    init.set_defaults(func=run_init)

    validate = actions.add_parser("validate", help="check a configuration against the installed plugins")
    validate.add_argument("file", help="TOML configuration file")
    add_json_flag(validate)
    validate.set_defaults(func=run_validate)

    schema = actions.add_parser("schema", help="print the JSON Schema (for editor completion)")
    add_json_flag(schema)
    schema.set_defaults(func=run_schema)


def run_init(args: argparse.Namespace) -> int:
    target = Path(args.output)
    if target.exists() and not args.force:
        raise ConfigError(f"{target} exists; pass --force to overwrite it")
    text = dump_config(default_config())
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)  # atomic: never a half-written config
    if args.json:
        emit_json({"written": str(target)})
    else:
        console.print(f"wrote {plain(str(target))}")
    return 0


def run_validate(args: argparse.Namespace) -> int:
    config = load_config(args.file)
    check_config(config, get_registry())
    pins = _pins(config)
    if args.json:
        emit_json({"file": args.file, "valid": True, "pins": pins})
        return 0
    table = Table(title=f"{plain(args.file)}: valid")
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
