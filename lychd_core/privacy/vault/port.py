"""The rehydration port: claim-checked, exact-token restoration of one quarantined return.

In one write transaction the lease is authenticated, its DEK unwrapped into a locked
buffer, the map decrypted into another, the return restored and validated again, and the
lease moved to CONSUMED (or REVOKED on any refusal); both buffers are zeroed before the
transaction ends, and the key material is destroyed right after it commits. Callers get
the restored candidate and a receipt, never the map.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lychd_core.digests import json_digest
from lychd_core.errors import (
    ClaimConflict,
    LeaseExpired,
    LeaseStateError,
    LeaseUnrecoverable,
    RehydrationRefused,
    RejectReason,
    ReversibleCutsDisabled,
)
from lychd_core.privacy.vault.aead import TAG_BYTES, open_into
from lychd_core.privacy.vault.buffers import LockedBuffer
from lychd_core.privacy.vault.claims import claim_digest
from lychd_core.privacy.vault.lease import ClaimRequest, LeaseState
from lychd_core.privacy.vault.rehydrate import RehydratedResult, RehydrationReceipt, Restorer, restored_label
from lychd_core.privacy.vault.returns import check_return
from lychd_core.privacy.vault.rows import LeaseRow, load_row, seal_aad
from lychd_core.privacy.vault.sqlite import immediate
from lychd_core.privacy.vault.store import Vault
from lychd_core.privacy.vault.tokens import RehydrationSchema, index_map, token_key

Validator = Callable[[Any], None]


def rehydrate(
    vault: Vault,
    lease_id: str,
    claim: ClaimRequest,
    returned: Any,
    schema: RehydrationSchema,
    validate: Validator | None = None,
) -> RehydratedResult:
    """Restore the exact issued tokens at marked paths of ``returned``; consume the lease.

    A claimant's rehydration refused for any reason, unproven hardening included, revokes
    the lease (it never stays CLAIMED); a call with another claim changes nothing. A
    ``returned`` that is not a plain JSON document is refused first: no claim can bind it,
    since a claim's return digest is taken only of checked documents.
    """
    check_return(returned)
    outcome: tuple[Any, dict[str, int]] | BaseException
    with immediate(vault._connection, vault.path, "rehydrate a lease") as conn:
        row = load_row(conn, lease_id, vault.keys.kek)
        expired = vault._expire_if_due(conn, row)
        if expired is not None:
            outcome = LeaseExpired(f"lease {lease_id} expired at {row.lease.expires_at}; its key was destroyed")
        else:
            _check_claim(row, claim)
            if vault.keys.claim_of(lease_id) not in (None, claim_digest(claim)):
                raise ClaimConflict(f"lease {lease_id} is claimed by another principal (the key store records it)")
            outcome = _hardened(vault, lease_id) or _attempt(vault, row, claim, returned, schema, validate)
            final = LeaseState.CONSUMED if isinstance(outcome, tuple) else LeaseState.REVOKED
            row = vault._write(conn, row, final, claim)
    vault._destroy([lease_id])
    if isinstance(outcome, BaseException):
        raise outcome
    value, substitutions = outcome
    return _result(row, claim, value, substitutions, schema, vault.clock())


def _hardened(vault: Vault, lease_id: str) -> ReversibleCutsDisabled | None:
    """The refusal when this process may not decrypt (the lease is then revoked), else None."""
    try:
        vault.hardening.require()
    except ReversibleCutsDisabled as exc:
        return ReversibleCutsDisabled(f"{exc}; lease {lease_id} was revoked and its key destroyed")
    return None


def _check_claim(row: LeaseRow, claim: ClaimRequest) -> None:
    lease_id = row.lease.lease_id
    if row.state is LeaseState.CONSUMED:
        raise RehydrationRefused(RejectReason.REPLAYED, "", f"lease {lease_id} was already consumed")
    if row.state.terminal:
        raise LeaseStateError(f"lease {lease_id} is {row.state.value}; nothing can be rehydrated")
    if row.state is LeaseState.ACTIVE:
        raise LeaseStateError(f"lease {lease_id} is ACTIVE; claim it before rehydrating")
    if row.claim != claim:
        raise ClaimConflict(f"lease {lease_id} is claimed by another principal, run, station or return")


def _attempt(
    vault: Vault,
    row: LeaseRow,
    claim: ClaimRequest,
    returned: Any,
    schema: RehydrationSchema,
    validate: Validator | None,
) -> tuple[Any, dict[str, int]] | BaseException:
    """Restore, or the refusal to raise once the lease is revoked."""
    try:
        if json_digest(returned) != claim.return_digest:
            raise RehydrationRefused(RejectReason.RETURN_MISMATCH, "", "the return differs from the claimed digest")
        if schema.digest != row.lease.request.schema_digest:
            raise RehydrationRefused(RejectReason.SCHEMA_MISMATCH, "", "the output schema is not the one leased")
        assert row.map_ciphertext is not None and row.map_nonce is not None
        with LockedBuffer(32) as dek, LockedBuffer(len(row.map_ciphertext) - TAG_BYTES) as plain:
            vault._unwrap_into(row, dek)
            open_into(dek.view, row.map_nonce, row.map_ciphertext, seal_aad("map", row.lease), plain.view)
            restorer = Restorer(
                schema=schema,
                purpose=row.lease.request.cut.purpose,
                namespace=row.lease.namespace,
                token_key=token_key(dek.view),
                entries=index_map(plain.view),
                plain=plain.view,
            )
            value = restorer.walk(returned)
            restorer.plain.release()
        failure = None if validate is None else _validation_failure(validate, value)
        if failure is not None:
            # raised outside the except block so the validator's message (it may quote values) is not chained
            raise RehydrationRefused(
                RejectReason.VALIDATION_FAILED, "", f"the restored value failed validation ({failure})"
            )
        return value, dict(sorted(restorer.per_category.items()))
    except (RehydrationRefused, LeaseUnrecoverable) as refusal:
        return refusal


def _validation_failure(validate: Validator, value: Any) -> str | None:
    try:
        validate(value)
    except Exception as exc:
        return type(exc).__name__
    return None


def _result(
    row: LeaseRow,
    claim: ClaimRequest,
    value: Any,
    substitutions: dict[str, int],
    schema: RehydrationSchema,
    now: int,
) -> RehydratedResult:
    cut = row.lease.request.cut
    limits = [cut.cut_expires_at, now + row.lease.request.retention_max]
    if cut.source_expires_at is not None:
        limits.append(cut.source_expires_at)
    purge_at = min(limits)
    label = restored_label(cut.source_label)
    receipt = RehydrationReceipt(
        cut_id=cut.cut_id,
        cut_digest=cut.cut_digest,
        lease_id=row.lease.lease_id,
        quarantined_return_digest=claim.return_digest,
        final_digest=json_digest(value),
        substitutions=substitutions,
        verifier=cut.verifier,
        policy_digest=cut.policy_digest,
        output_schema_digest=schema.digest,
        restored_label_digest=json_digest(label.to_json()),
        rehydrated_at=now,
        purge_at=purge_at,
    )
    return RehydratedResult(value, label, receipt, purge_at)
