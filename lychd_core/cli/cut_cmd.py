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
import time
from typing import Any

from pydantic import ValidationError

from lychd_core.cli.cut_chain import StoredChain, read_chain, write_chain
from lychd_core.cli.cut_lease import check_stored_lease, prepare_with_lease
from lychd_core.cli.loading import CONFIG_HELP, command_config
from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.config import LychdConfig, validation_problems
from lychd_core.digests import sha256_digest
from lychd_core.errors import ConfigError, CutInputError, CutReason
from lychd_core.families import PluginFamily
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy import (
    CallProjection,
    ClosedVocabulary,
    CutVerification,
    SealAuthority,
    TransformationReceipt,
    label_for,
    load_plan,
    verify_cut,
)
from lychd_core.privacy.grammar import MAX_RECORDS
from lychd_core.privacy.prepare import CutProfile, cut_policy_digest, prepare_cut
from lychd_core.projection.materials import Workspace
from lychd_core.registry import get_registry

TEXT_FORMAT = "text"
MAX_REPORT_BYTES = 64 * 1024 * 1024
__all__ = ["CutInputError", "add_parser"]


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


def _report(args: argparse.Namespace) -> tuple[str, bytes]:
    """The report's workspace-relative path and bytes: resolved against ``--workspace``, read inside it.

    The same boundary as ``lychd project``: a relative REPORT is taken against the workspace
    root, an absolute one must lie inside it, a symlink may not leave it, and only a regular
    file within the byte bound is read (a FIFO, device or folder is refused, never waited on).
    """
    workspace = Workspace(args.workspace)
    relative, is_folder = workspace.argument(args.report)
    if is_folder:
        raise CutInputError(f"{args.report}: is a folder; name the report file")
    return relative, workspace.read_bytes(relative, MAX_REPORT_BYTES)


def _name_free(label: PrivatizationLabel, digest: str) -> PrivatizationLabel:
    """The rule's label with its material parent bound by digest only: a file name (which may hold
    the owner value) never reaches the candidate's label, ``--json`` or the stored chain."""
    if not label.material_parents:
        return label
    return label.model_copy(update={"material_parents": frozenset({f"report@{digest}"})})


def _text_projection(args: argparse.Namespace, data: bytes, label: PrivatizationLabel) -> CallProjection:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CutInputError(f"{args.report}: grammar text must be UTF-8 (invalid byte at {exc.start})") from None
    if text.count("\n") - 1 > MAX_RECORDS:
        raise CutInputError(f"{args.report}: more than {MAX_RECORDS} records; the grammar text bound is {MAX_RECORDS}")
    return CallProjection.of_texts("artifacts", [text], label)


def _source(args: argparse.Namespace, profile: CutProfile) -> tuple[Any, CallProjection, str | None]:
    """The importer output (or None for grammar text), the projection, and the chain's origin digest."""
    relative, data = _report(args)
    config = command_config(args)
    digest = sha256_digest(data)
    label = _name_free(label_for(config.labels, relative, digest), digest)
    if args.format == TEXT_FORMAT:
        return None, _text_projection(args, data, label), None
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
    if args.out:
        write_chain(args.out, StoredChain.of(prepared, lease or None))
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
    stored = read_chain(args.chain)
    verification = verify_stored(args, config, profile, options, vocabulary, stored, _source(args, profile))
    if args.json:
        emit_json(verification.to_json())
    else:
        _show_verdict(verification, stored.receipts)
    verification.require()
    return 0


def verify_stored(
    args: argparse.Namespace,
    config: LychdConfig,
    profile: CutProfile,
    options: Any,
    vocabulary: ClosedVocabulary,
    stored: StoredChain,
    sourced: tuple[Any, CallProjection, str | None],
) -> CutVerification:
    """The verdict over a stored chain: every receipt derived again from the report, every stored part
    compared with what is derived (``sourced``: what :func:`_source` read from the report)."""
    imported, source, origin = sourced
    policy = cut_policy_digest(_pin(profile), options, profile.grammar, vocabulary)
    verification = verify_cut(
        source=source,
        candidate=stored.candidate,
        plan=stored.plan,
        receipts=stored.receipts,
        grammar=profile.grammar,
        vocabulary=vocabulary,
        policy_digest=policy,
        now=_now(args),
        transformer=_pin(profile),
        chain=() if imported is None else (imported.receipt(stored.plan, policy),),
        origin_digest=origin,
        reversal=stored.verification.reversal,
    )
    if verification.verdict != "pass":
        return verification
    return _attest_stored(args, config, stored, verification, source)


def _attest_stored(
    args: argparse.Namespace,
    config: LychdConfig,
    stored: StoredChain,
    verification: CutVerification,
    source: CallProjection,
) -> CutVerification:
    """A passing verdict stands only if the stored verdict (and any lease) is exactly what was derived now."""
    problem = None
    if stored.verification.to_json() != verification.to_json():
        problem = "the stored verification is not the one the verifier derives from the cut"
    elif (stored.lease is None) != (verification.reversal is None):
        problem = "the chain's lease and its verification's reversal do not go together"
    elif stored.lease is not None:
        problem = check_stored_lease(args, config, stored.lease, verification, stored.plan, source, stored.candidate)
    if problem is None:
        return verification
    failed = {"verdict": "fail", "reason": CutReason.VERDICT_FAILED, "detail": problem, "receipt_digests": ()}
    return verification.model_copy(update=failed)
