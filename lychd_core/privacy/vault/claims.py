"""Who may claim a lease: the binding a claim must match, and the digests claims and returns are recorded by."""

from __future__ import annotations

from lychd_core.digests import json_digest
from lychd_core.errors import ClaimConflict, LeaseStateError
from lychd_core.privacy.vault.lease import ClaimRequest, LeaseState
from lychd_core.privacy.vault.returns import check_return
from lychd_core.privacy.vault.rows import LeaseRow


def claim_digest(claim: ClaimRequest) -> str:
    """What the key store records of a claim: a digest, never the claim's names."""
    return json_digest(claim.model_dump(mode="json"))


def return_digest(value: object) -> str:
    """Digest a quarantined return the way claims and receipts bind it (after :func:`check_return`)."""
    check_return(value)
    return json_digest(value)


def is_repeat_claim(row: LeaseRow, claim: ClaimRequest) -> bool:
    """True when ``claim`` is the lease's recorded claim again; refuse any claim the lease cannot take.

    A CLAIMED lease takes only its own claim again; otherwise only an ACTIVE lease bound to the
    claim's run, attempt and station may be claimed.
    """
    lease_id = row.lease.lease_id
    if row.state is LeaseState.CLAIMED:
        if row.claim == claim:
            return True
        raise ClaimConflict(f"lease {lease_id} is already claimed by another principal, run, station or return")
    if row.state is not LeaseState.ACTIVE:
        raise LeaseStateError(f"lease {lease_id} is {row.state.value}; only an ACTIVE lease can be claimed")
    request = row.lease.request
    if (claim.run_id, claim.attempt, claim.station) != (request.run_id, request.attempt, request.station):
        raise ClaimConflict(
            f"lease {lease_id} is bound to another run, attempt or station; the claim names "
            f"station {claim.station!r}, run {claim.run_id!r}, attempt {claim.attempt}"
        )
    return False
