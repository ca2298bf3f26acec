"""``lychd vault status|purge|rehydrate`` on the pseudonym-map vault of a workspace."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.table import Table

from lychd_core.cli.cut_lease import open_vault, read_schema, vault_hardening
from lychd_core.cli.loading import CONFIG_HELP, command_config
from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.config import LychdConfig
from lychd_core.errors import VaultInputError
from lychd_core.inputs import parse_json, read_input_bytes
from lychd_core.privacy.vault import ClaimRequest, Sink, Vault, rehydrate, return_digest


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("vault", help="inspect, purge and rehydrate through the pseudonym-map vault")
    actions = parser.add_subparsers(dest="vault_command", metavar="ACTION", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", help=CONFIG_HELP)
    common.add_argument("--workspace", default=".", help="workspace root holding the state directory (default: .)")
    add_json_flag(common)

    status = actions.add_parser("status", parents=[common], help="hardening checks and lease counts by state")
    status.set_defaults(func=run_status)
    purge = actions.add_parser("purge", parents=[common], help="expire what is due and erase every ended lease's key")
    purge.set_defaults(func=run_purge)

    again = actions.add_parser("rehydrate", parents=[common], help="claim a lease and restore a quarantined return")
    again.add_argument("lease_id", metavar="LEASE_ID")
    again.add_argument("--return", dest="returned", required=True, help="JSON file: the quarantined model return")
    again.add_argument("--schema", required=True, help="JSON file: the RehydrationSchema the lease was issued for")
    again.add_argument("--principal", required=True, help="who claims the lease")
    again.add_argument("--run", required=True, help="the run the lease is bound to")
    again.add_argument("--attempt", type=int, required=True, help="the attempt the lease is bound to")
    again.add_argument("--station", required=True, help="this station's name (must be the leased one)")
    again.set_defaults(func=run_rehydrate)


def _paths(args: argparse.Namespace) -> tuple[Path, Path, LychdConfig]:
    config: LychdConfig = command_config(args)
    root, stores = Path(args.workspace), config.stores
    return stores.path_of(stores.vault, root), stores.path_of(stores.vault_keys, root), config


def run_status(args: argparse.Namespace) -> int:
    path, keys, config = _paths(args)
    report = vault_hardening(config)
    counts: dict[str, int] | None = None
    epoch = None
    if path.exists():
        with Vault.open(path, keys, hardening=report) as vault:
            counts, epoch = vault.counts(), vault.keys.current_epoch()
    data = {"vault": str(path), "keys": str(keys), "exists": counts is not None, "key_epoch": epoch}
    data |= {"leases": counts or {}, "hardening": report.to_json()}
    if args.json:
        emit_json(data)
        return 0
    table = Table(title="lychd vault hardening")
    for column in ("check", "ok", "detail"):
        table.add_column(column, overflow="fold")
    for check in report.checks:
        table.add_row(check.name, "yes" if check.ok else "NO", plain(check.detail))
    console.print(table)
    verdict = "enabled" if report.reversible_allowed else f"DISABLED ({plain(report.reason)})"
    console.print(f"reversible cuts: {verdict}", soft_wrap=True)
    if counts is None:
        console.print(f"no vault yet at {plain(str(path))}", soft_wrap=True)
    else:
        console.print(f"key epoch {epoch}; leases: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def run_purge(args: argparse.Namespace) -> int:
    path, _, config = _paths(args)
    if not path.exists():
        result = {"expired": 0, "erased": 0, "retired_epochs": 0}
    else:
        with open_vault(config, Path(args.workspace)) as vault:
            result = vault.purge()
    if args.json:
        emit_json(result)
    else:
        console.print(
            f"expired {result['expired']} lease(s), erased {result['erased']} key(s), "
            f"retired {result['retired_epochs']} key epoch(s)"
        )
    return 0


MAX_RETURN_BYTES = 16 * 1024 * 1024


def read_return(name: str) -> Any:
    """A quarantined model return through the strict input layer: a regular file, 16 MiB, strict JSON."""
    data = read_input_bytes(name, what="--return", max_bytes=MAX_RETURN_BYTES, error=VaultInputError)
    return parse_json(data, source=f"--return {name}", error=VaultInputError, allow_floats=False)


def run_rehydrate(args: argparse.Namespace) -> int:
    path, _, config = _paths(args)
    returned = read_return(args.returned)
    schema = read_schema(args.schema, VaultInputError)
    try:
        claim = ClaimRequest(
            principal=args.principal,
            run_id=args.run,
            attempt=args.attempt,
            station=args.station,
            return_digest=return_digest(returned),
        )
    except (ValidationError, TypeError) as exc:
        raise VaultInputError(f"invalid rehydration input: {exc}") from None
    if not path.exists():
        raise VaultInputError(f"no vault at {path}; nothing was ever leased in this workspace")
    with open_vault(config, Path(args.workspace)) as vault:
        if not vault.get(args.lease_id).state.terminal:  # an ended lease is refused by the port itself
            vault.claim(args.lease_id, claim)
        result = rehydrate(vault, args.lease_id, claim, returned, schema)
    value = result.value_for(Sink.LOCAL_VIEW)
    data = {
        "value": value,
        "receipt": result.receipt.model_dump(mode="json"),
        "label": result.label.to_json(),
        "purge_at": result.purge_at,
        "local_only": result.local_only,
        "executable": result.executable,
    }
    if args.json:
        emit_json(data)
    else:
        console.print_json(json.dumps(value, ensure_ascii=False))
        console.print(
            f"receipt {result.receipt.digest}; local only, not executable; purge by {result.purge_at}",
            soft_wrap=True,
        )
    return 0
