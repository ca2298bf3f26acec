"""The vault half of ``lychd cut prepare`` for a reversible profile: terms, schema, lease."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from lychd_core.config import LychdConfig
from lychd_core.errors import LeaseInputError, LychdError
from lychd_core.inputs import parse_json, read_input_bytes
from lychd_core.privacy import (
    CallProjection,
    ClosedVocabulary,
    CutVerification,
    DisclosurePlan,
    SealAuthority,
    TransformationReceipt,
)
from lychd_core.privacy.reversible import PreparedReversibleCut, ReversibleCutProfile, prepare_reversible_cut
from lychd_core.privacy.vault import HardeningReport, RehydrationSchema, Vault, harden_process
from lychd_core.privacy.vault.lease import LeaseTerms
from lychd_core.privacy.vault.store import wall_clock
from lychd_core.stores.factory import prepare_for


def _vault_option(config: LychdConfig, name: str) -> bool:
    pin = config.privacy_profile
    return pin is not None and pin.options.get(name) is True


def open_vault(config: LychdConfig, root: Path, clock: Callable[[], int] | None = None) -> Vault:
    """The workspace vault, hardened (with ``mlockall`` when the pinned profile's options ask for it)."""
    stores = config.stores
    prepare_for(config, root, stores.path_of(stores.vault, root))
    return Vault.open(
        stores.path_of(stores.vault, root),
        stores.path_of(stores.vault_keys, root),
        clock=clock or wall_clock,
        hardening=vault_hardening(config),
        truncate_wal_on_erasure=_vault_option(config, "truncate_wal_on_erasure"),
    )


def vault_hardening(config: LychdConfig) -> HardeningReport:
    """This process's hardening report, with ``mlockall`` when the pinned profile's options ask for it."""
    return harden_process(lock_all_memory=_vault_option(config, "lock_all_memory"))


MAX_SCHEMA_BYTES = 1024 * 1024


def read_schema(name: str, error: type[LychdError]) -> RehydrationSchema:
    """A ``RehydrationSchema`` file through the strict input layer (regular file, 1 MiB, strict JSON)."""
    data = read_input_bytes(name, what="--schema", max_bytes=MAX_SCHEMA_BYTES, error=error)
    try:
        return RehydrationSchema.model_validate(parse_json(data, source=f"--schema {name}", error=error))
    except ValidationError as exc:
        raise error(f"--schema {name}: not a RehydrationSchema: {exc.error_count()} problem(s)") from None


def _schema(name: str) -> RehydrationSchema:
    return read_schema(name, LeaseInputError)


def _option(options: BaseModel, name: str) -> int:
    value = getattr(options, name, None)
    if not isinstance(value, int):
        raise LeaseInputError(f"the reversible profile's options have no integer {name!r}")
    return value


def prepare_with_lease(
    args: argparse.Namespace,
    config: LychdConfig,
    profile: Any,
    source: CallProjection,
    plan: DisclosurePlan,
    vocabulary: ClosedVocabulary,
    options: BaseModel,
    chain: Sequence[TransformationReceipt],
    origin: str | None,
) -> PreparedReversibleCut:
    """Open the workspace vault and prepare a reversible cut bound to a new lease."""
    missing = [flag for flag, value in (("--schema", args.schema), ("--run", args.run),
               ("--attempt", args.attempt), ("--station", args.station)) if value is None]  # fmt: skip
    if missing:
        raise LeaseInputError(
            f"{profile.name}@{profile.revision} is reversible: it needs {', '.join(missing)} for its vault lease "
            "(or pin closed-diagnostic@1 for an irreversible cut)"
        )
    schema = _schema(args.schema)
    now = int(time.time()) if args.now is None else args.now
    deadline = now + _option(options, "deadline_seconds") if args.deadline is None else args.deadline
    try:
        terms = LeaseTerms(
            run_id=args.run,
            attempt=args.attempt,
            station=args.station,
            schema_digest=schema.digest,
            remote_deadline_at=deadline,
            return_window=_option(options, "return_window_seconds"),
            retention_max=_option(options, "retention_seconds"),
        )
    except ValidationError as exc:
        raise LeaseInputError(
            f"invalid lease terms: {exc.error_count()} problem(s): {exc.errors()[0]['msg']}"
        ) from None
    clock = (lambda: now) if args.now is not None else None
    cut_profile: ReversibleCutProfile = profile
    with open_vault(config, Path(args.workspace), clock) as vault:
        return prepare_reversible_cut(
            cut_profile, source, plan, vocabulary, options, SealAuthority(), vault, terms,
            now=now, chain=chain, origin_digest=origin,
        )  # fmt: skip


def check_stored_lease(
    args: argparse.Namespace,
    config: LychdConfig,
    lease: dict[str, Any],
    verification: CutVerification,
    plan: DisclosurePlan,
    source: CallProjection,
    candidate: CallProjection,
) -> str | None:
    """What of a stored reversible chain's lease the workspace vault does not attest (None: all of it).

    The lease id, namespace and expiry are not derivable from the report, so they are
    checked against the vault's own (MAC-verified) lease row and its cut binding.
    """
    reversal = verification.reversal
    stores = config.stores
    if reversal is None or not stores.path_of(stores.vault, Path(args.workspace)).exists():
        return "the chain names a lease but this workspace has no vault to attest it"
    if lease["lease_id"] != reversal.lease_id:
        return "the chain's lease is not the one its verification names"
    with open_vault(config, Path(args.workspace)) as vault:
        row = vault.get(reversal.lease_id).lease
    binding = row.request.cut
    checks = {
        "namespace": row.namespace == reversal.namespace,
        "candidate": row.candidate_digest == candidate.digest,
        "expiry": row.expires_at == lease["expires_at"],
        "plan": binding.plan_digest == plan.digest,
        "source": binding.source_digest == source.digest,
        "policy": binding.policy_digest == verification.policy_digest,
    }
    wrong = sorted(name for name, ok in checks.items() if not ok)
    return f"the vault's lease does not bind this chain's {', '.join(wrong)}" if wrong else None
