"""``PseudonymMapLease@1``: what a lease binds, its states, and the claim it accepts.

The lease binds a Privacy Cut by ids and digests (``CutBinding``), the run, attempt,
target and purpose, an unpredictable keyed token namespace, source and candidate digests,
the key epoch, the one station allowed to rehydrate, and its expiry. The map itself is
never part of a lease object: it lives only as ciphertext in the vault.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from lychd_core.digests import check_digest, json_digest
from lychd_core.errors import DurabilityRefused, LeaseStateError
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy.seal import PrivacyCut
from lychd_core.privacy.verify import CutVerification

LEASE_SCHEMA = "PseudonymMapLease@1"
DigestStr = Annotated[str, AfterValidator(check_digest)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Category = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,31}$")]


class LeaseState(Enum):
    ACTIVE = "ACTIVE"
    CLAIMED = "CLAIMED"
    CONSUMED = "CONSUMED"
    EXPIRED = "EXPIRED"
    REVOKED = "REVOKED"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL


TERMINAL = frozenset({LeaseState.CONSUMED, LeaseState.EXPIRED, LeaseState.REVOKED})


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CutBinding(_Frozen):
    """The Privacy Cut a lease belongs to, by ids and digests (never its bytes)."""

    cut_id: Name = Field(description="Identity of the sealed cut.")
    cut_digest: DigestStr = Field(description="Digest of the PrivacyCut@1 record.")
    plan_digest: DigestStr = Field(description="Digest of the DisclosurePlan@1.")
    source_digest: DigestStr = Field(description="Digest of the material before the cut.")
    target: Name = Field(description="Remote target the candidate is disclosed to.")
    purpose: Name = Field(description="Purpose named by the plan.")
    cut_expires_at: int = Field(ge=0, strict=True, description="When the cut expires (unix seconds).")
    source_expires_at: int | None = Field(default=None, ge=0, description="Earliest source expiry, if any.")
    source_label: PrivatizationLabel = Field(description="Label of the source; restored on rehydration.")
    verifier: Name = Field(description="The verifier that passed the cut, name@revision.")
    policy_digest: DigestStr = Field(description="Digest of the cut policy (profile@revision, options, grammar).")

    @classmethod
    def from_cut(
        cls,
        cut: PrivacyCut,
        verification: CutVerification,
        source_label: PrivatizationLabel,
        *,
        source_expires_at: int | None = None,
    ) -> CutBinding:
        """Bind a lease to a sealed reversible cut; an irreversible cut promises no rehydration."""
        if not cut.reversible:
            raise LeaseStateError(f"cut {cut.event_id} is irreversible: it has no reversal map and no lease")
        if verification.verdict != "pass" or verification.digest != cut.verification_digest:
            raise LeaseStateError(f"the verification given is not the passing one cut {cut.event_id} was sealed with")
        return cls(
            cut_id=cut.cut_id,
            cut_digest=json_digest(cut.to_json()),
            plan_digest=cut.plan_digest,
            source_digest=cut.source_digest,
            target=cut.plan.target,
            purpose=cut.plan.purpose,
            cut_expires_at=cut.expires_at,
            source_expires_at=source_expires_at,
            source_label=source_label,
            verifier=verification.verifier,
            policy_digest=cut.policy_digest,
        )


class SensitiveValue(_Frozen):
    """One value the cut replaces by a token; held only in memory and as vault ciphertext."""

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    category: Category
    value: str = Field(min_length=1, repr=False)


class LeaseTerms(_Frozen):
    """Everything a lease binds besides its cut: known before a reversible cut is sealed."""

    run_id: Name
    attempt: int = Field(ge=0, strict=True)
    station: Name = Field(description="The only station that may claim and rehydrate.")
    schema_digest: DigestStr = Field(description="Digest of the RehydrationSchema marking output paths.")
    remote_deadline_at: int = Field(ge=0, strict=True, description="When the remote call must have returned.")
    return_window: int = Field(ge=0, strict=True, description="Seconds after the deadline to accept a return.")
    retention_max: int = Field(gt=0, strict=True, description="Longest a rehydrated result may be kept (seconds).")

    @property
    def needed_until(self) -> int:
        """The lease must stay recoverable until the deadline plus the return window."""
        return self.remote_deadline_at + self.return_window

    def bind(self, cut: CutBinding) -> LeaseRequest:
        return LeaseRequest(cut=cut, **self.model_dump())


class LeaseRequest(LeaseTerms):
    """Everything needed to open a lease except the values and the candidate."""

    cut: CutBinding


def durable_expiry(request: LeaseRequest, now: int) -> int:
    """When the lease expires, or ``DurabilityRefused`` if it cannot cover the remote wait."""
    limits = {"cut expiry": request.cut.cut_expires_at}
    if request.cut.source_expires_at is not None:
        limits["source expiry"] = request.cut.source_expires_at
    bound_name, bound = min(limits.items(), key=lambda item: item[1])
    if request.remote_deadline_at <= now:
        raise DurabilityRefused(f"the remote deadline {request.remote_deadline_at} is not after now ({now})")
    if request.needed_until > bound:
        raise DurabilityRefused(
            f"the lease must last until {request.needed_until} (deadline {request.remote_deadline_at} + return "
            f"window {request.return_window}s) but the {bound_name} is {bound}; keep the workflow local or use an "
            "irreversible cut"
        )
    return request.needed_until


class PseudonymMapLease(_Frozen):
    """A lease as stored and returned: bindings and state, never map bytes or keys."""

    schema_id: str = Field(default=LEASE_SCHEMA, pattern=f"^{LEASE_SCHEMA}$")
    lease_id: Name
    request: LeaseRequest
    namespace: str = Field(pattern=r"^[a-z2-7]{16}$", description="Keyed, unpredictable token namespace.")
    candidate_digest: DigestStr
    key_epoch: int = Field(ge=1, strict=True)
    created_at: int = Field(ge=0, strict=True)
    expires_at: int = Field(ge=0, strict=True)

    def body_json(self) -> dict[str, object]:
        return self.model_dump(mode="json")

    @property
    def digest(self) -> str:
        return json_digest(self.body_json())


class ClaimRequest(_Frozen):
    """Who claims a lease for which return; the compare-and-set key."""

    principal: Name
    run_id: Name
    attempt: int = Field(ge=0, strict=True)
    station: Name
    return_digest: DigestStr = Field(description="Digest of the quarantined return to rehydrate.")


class LeaseView(_Frozen):
    """A lease and its current state (what ``status`` and callers see)."""

    lease: PseudonymMapLease
    state: LeaseState
    claim: ClaimRequest | None
    changed_at: int
    key_present: bool


class LeaseGrant(_Frozen):
    """What opening a lease returns: the opaque reference and the disclosed candidate."""

    lease_id: str = Field(description="Opaque reference; the only thing a checkpoint may keep.")
    namespace: str
    candidate: str = Field(repr=False)
    candidate_digest: DigestStr
    expires_at: int
