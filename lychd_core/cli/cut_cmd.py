"""``lychd cut prepare|verify``: a Privacy Cut of one report.

``prepare`` imports the report (or reads it as grammar text), labels it with the
configured ``[[labels]]`` rules, and has the configured privacy profile censor it;
the core verifies and seals. It prints the candidate, the verdict and the receipt
chain (digests only); ``--out`` stores the chain for ``verify``, which re-checks it.
The seal itself lives only in the preparing process. When the pinned profile is
reversible (``closed-diagnostic-reversible@1``) the owner slots carry tokens of a new
vault lease, whose opaque id is printed for ``lychd vault rehydrate``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lychd_core.cli.cut_lease import prepare_with_lease
from lychd_core.cli.loading import CONFIG_HELP, command_config
from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.config import LychdConfig, validation_problems
from lychd_core.digests import sha256_digest
from lychd_core.errors import ConfigError, LychdError
from lychd_core.families import PluginFamily
from lychd_core.privacy import (
    CallProjection,
    ClosedVocabulary,
    CutVerification,
    DisclosurePlan,
    SealAuthority,
    TransformationReceipt,
    label_for,
    load_plan,
    verify_cut,
)
from lychd_core.privacy.prepare import CutProfile, cut_policy_digest, prepare_cut
from lychd_core.projection.materials import Workspace
from lychd_core.registry import get_registry

TEXT_FORMAT = "text"


class CutInputError(LychdError, ValueError):
    """A cut command's inputs (report, stored chain, format, profile) are unusable."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("cut", help="prepare or verify an irreversible Privacy Cut of a report")
    commands = parser.add_subparsers(dest="cut_command", metavar="COMMAND", required=True)
    prepare = commands.add_parser("prepare", help="censor, verify and seal one report; print the candidate")
    verify = commands.add_parser("verify", help="re-check a stored receipt chain against its report")
    for sub in (prepare, verify):
        sub.add_argument("report", metavar="REPORT", help="the report, inside the workspace")
        sub.add_argument("--vocabulary", required=True, help="the closed public vocabulary (TOML)")
        sub.add_argument("--owner", default="", help="the report's owner (the sensitive value; importers need it)")
        sub.add_argument("--format", default="pip-audit", help=f"an importer of the profile, or {TEXT_FORMAT!r}")
        sub.add_argument("--config", help=CONFIG_HELP)
        sub.add_argument("--workspace", default=".", help="workspace root the report path is relative to")
        sub.add_argument("--now", type=int, help="current time in Unix seconds (default: the clock)")
        add_json_flag(sub)
    prepare.add_argument("--plan", required=True, metavar="PLAN.toml", help="the DisclosurePlan@1")
    prepare.add_argument("--out", metavar="CHAIN.json", help="store plan, receipts, verdict and candidate here")
    lease = prepare.add_argument_group("reversible profiles (a vault lease)")
    lease.add_argument("--schema", metavar="SCHEMA.json", help="the RehydrationSchema marking output paths")
    lease.add_argument("--run", help="the run the lease is bound to")
    lease.add_argument("--attempt", type=int, help="the attempt the lease is bound to")
    lease.add_argument("--station", help="the only station that may rehydrate")
    lease.add_argument("--deadline", type=int, help="Unix seconds by which the remote call returns (default: option)")
    verify.add_argument("--chain", required=True, metavar="CHAIN.json", help="a chain stored by prepare --out")
    prepare.set_defaults(func=run_prepare)
    verify.set_defaults(func=run_verify)


def _profile(config: LychdConfig) -> tuple[CutProfile, Any]:
    pin = config.privacy_profile
    if pin is None:
        raise CutInputError("the configuration names no [privacy_profile]; pin closed-diagnostic revision 1")
    profile = get_registry().resolve(PluginFamily.PRIVACY_PROFILE, pin.name, pin.revision).obj
    try:
        options = profile.options_model.model_validate(pin.options)
    except ValidationError as exc:
        raise ConfigError("privacy_profile.options: " + "; ".join(validation_problems(exc))) from None
    if not hasattr(profile, "censor") or not hasattr(profile, "grammar") or not hasattr(profile, "importers"):
        raise CutInputError(f"privacy profile {profile.name}@{profile.revision} cannot prepare cuts (no censor)")
    return profile, options


def _source(args: argparse.Namespace, profile: CutProfile) -> tuple[Any, CallProjection, str | None]:
    """The importer output (or None for grammar text), the projection, and the chain's origin digest."""
    workspace = Workspace(Path(args.workspace).resolve())
    relative = workspace.relative(args.report)
    try:
        data = (workspace.root / relative).read_bytes()
    except OSError as exc:
        raise CutInputError(f"{args.report}: cannot read the report: {exc.strerror}") from None
    config = command_config(args)
    label = label_for(config.labels, relative, sha256_digest(data))
    if args.format == TEXT_FORMAT:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise CutInputError(f"{args.report}: grammar text must be UTF-8") from None
        return None, CallProjection.of_texts("artifacts", [text], label), None
    importer = profile.importers.get(args.format)
    if importer is None:
        known = ", ".join(sorted([*profile.importers, TEXT_FORMAT]))
        raise CutInputError(f"--format {args.format!r} is not an importer of {profile.name} (known: {known})")
    imported = importer.import_report(data, args.owner, label)
    return imported, imported.projection, imported.report_digest


def _now(args: argparse.Namespace) -> int:
    return int(time.time()) if args.now is None else args.now


def run_prepare(args: argparse.Namespace) -> int:
    config = command_config(args)
    profile, options = _profile(config)
    vocabulary = ClosedVocabulary.load(args.vocabulary)
    imported, source, origin = _source(args, profile)
    plan = load_plan(args.plan, manifest_digest=source.manifest_digest)
    policy = cut_policy_digest(_pin(profile), options, profile.grammar, vocabulary)
    chain = () if imported is None else (imported.receipt(plan, policy),)
    lease: dict[str, Any] = {}
    if hasattr(profile, "censor_reversible"):
        reversible = prepare_with_lease(args, config, profile, source, plan, vocabulary, options, chain, origin)
        prepared, lease = reversible.prepared, reversible.to_json()["lease"]
    else:
        prepared = prepare_cut(
            profile,
            source,
            plan,
            vocabulary,
            options,
            SealAuthority(),
            now=_now(args),
            chain=chain,
            origin_digest=origin,
        )
    stored = {
        "plan": plan.to_json(),
        "receipts": [receipt.to_json() for receipt in prepared.receipts],
        "verification": prepared.verification.to_json(),
        "candidate": prepared.candidate.to_json(),
    } | ({"lease": lease} if lease else {})
    if args.out:
        Path(args.out).write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if args.json:
        emit_json(
            {**prepared.to_json(), "candidate": prepared.candidate.to_json()} | ({"lease": lease} if lease else {})
        )
        return 0
    for item in prepared.candidate.items:
        console.print(f"[bold]candidate {plain(item.section)}[{plain(item.key)}][/]")
        console.print(plain(item.text), end="", soft_wrap=True)
    _show_verdict(prepared.verification, prepared.receipts)
    console.print(f"sealed in this process only; public evidence: event {prepared.cut.event_id}", soft_wrap=True)
    if lease:
        console.print(f"reversible: lease {lease['lease_id']} (keep only this id), expires {lease['expires_at']}")
    return 0


def _pin(profile: CutProfile) -> str:
    return f"{profile.name}@{profile.revision}"


def _show_verdict(verification: CutVerification, receipts: tuple[TransformationReceipt, ...]) -> None:
    colour = "green" if verification.verdict == "pass" else "red"
    console.print(f"verdict: [{colour}]{verification.verdict}[/] ({', '.join(verification.checks)})")
    for receipt in receipts:
        operations = ", ".join(f"{o.operation} {o.category} x{o.count}" for o in receipt.operations) or "none"
        line = f"receipt {receipt.stage} {receipt.transformer}: {receipt.input_digest} -> {receipt.output_digest} "
        console.print(plain(f"{line}[{operations}] digest {receipt.digest}"), soft_wrap=True)


def run_verify(args: argparse.Namespace) -> int:
    config = command_config(args)
    profile, options = _profile(config)
    vocabulary = ClosedVocabulary.load(args.vocabulary)
    _, source, origin = _source(args, profile)
    try:
        stored = json.loads(Path(args.chain).read_text(encoding="utf-8"))
        plan = DisclosurePlan.from_json(stored["plan"])
        receipts = tuple(TransformationReceipt.from_json(item) for item in stored["receipts"])
        reversal = CutVerification.model_validate(stored["verification"]).reversal
        candidate = source.replaced([item["text"] for item in stored["candidate"]["items"]])
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, LychdError):
            raise
        raise CutInputError(f"{args.chain}: not a chain stored by `lychd cut prepare --out`: {exc!r:.80}") from None
    verification = verify_cut(
        source=source,
        candidate=candidate,
        plan=plan,
        receipts=receipts,
        grammar=profile.grammar,
        vocabulary=vocabulary,
        policy_digest=cut_policy_digest(_pin(profile), options, profile.grammar, vocabulary),
        now=_now(args),
        origin_digest=origin,
        reversal=reversal,
    )
    if args.json:
        emit_json(verification.to_json())
    else:
        _show_verdict(verification, receipts)
    verification.require()
    return 0
