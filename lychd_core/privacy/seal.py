"""``PrivacyCut@1`` and the in-memory authority that seals cuts and admits their candidates.

The seal is process-local preparation evidence, not a durable grant: a new process
has a new authority that knows no cuts, so a restart requires new preparation.
Broadly visible evidence of a cut is only its random event id.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lychd_core.errors import CutReason, CutRefused, SealReason, SealRefused
from lychd_core.privacy.egress import EgressDecision
from lychd_core.privacy.plan import DisclosurePlan
from lychd_core.privacy.projection import CallProjection
from lychd_core.privacy.receipts import TransformationReceipt
from lychd_core.privacy.verify import CutVerification

CUT_SCHEMA = "PrivacyCut@1"


@dataclass(frozen=True, slots=True)
class PrivacyCut:
    """A sealed cut: everything it binds, by digest. Valid only in the authority that sealed it.

    A reversible cut is bound to its vault lease (``lease_id``, an opaque reference) and
    the lease's token namespace; an irreversible one has neither.
    """

    cut_id: str
    event_id: str
    plan: DisclosurePlan
    plan_digest: str
    source_digest: str
    candidate_digest: str
    receipt_digests: tuple[str, ...]
    verification_digest: str
    policy_digest: str
    expires_at: int
    reversible: bool = False
    lease_id: str | None = None
    token_namespace: str | None = None

    def public_evidence(self) -> dict[str, str]:
        """What may be retained broadly: the schema and a random event id, nothing else."""
        return {"schema": CUT_SCHEMA, "event_id": self.event_id}

    def to_json(self) -> dict[str, Any]:
        """Local evidence (digests only, no text): for the preparing process, not for broad retention."""
        data: dict[str, Any] = {
            "schema": CUT_SCHEMA,
            "cut_id": self.cut_id,
            "event_id": self.event_id,
            "plan": self.plan.to_json(),
            "plan_digest": self.plan_digest,
            "source_digest": self.source_digest,
            "candidate_digest": self.candidate_digest,
            "receipt_digests": list(self.receipt_digests),
            "verification_digest": self.verification_digest,
            "policy_digest": self.policy_digest,
            "expires_at": self.expires_at,
            "reversible": self.reversible,
        }
        if self.reversible:
            data |= {"lease_id": self.lease_id, "token_namespace": self.token_namespace}
        return data


@dataclass
class _Sealed:
    cut: PrivacyCut
    label: Any
    uses_left: int
    deliveries: dict[str, EgressDecision] = field(default_factory=dict)


class SealAuthority:
    """Seals cuts whose parts all match, and admits their exact candidates within the plan's ceiling."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cuts: dict[str, _Sealed] = {}

    def seal(
        self,
        *,
        source: CallProjection,
        candidate: CallProjection,
        plan: DisclosurePlan,
        receipts: Sequence[TransformationReceipt],
        verification: CutVerification,
        policy_digest: str,
        now: int,
    ) -> PrivacyCut:
        """Seal only when source, candidate, plan, chain, verdict, policy and expiry all match.

        The cut is reversible exactly when the verification checked a lease's tokens; it is
        then bound to that lease.
        """
        verification.require()
        expected = {
            "source": source.digest,
            "candidate": candidate.digest,
            "plan": plan.digest,
            "chain": tuple(receipt.digest for receipt in receipts),
            "policy": policy_digest,
        }
        found = {
            "source": verification.source_digest,
            "candidate": verification.candidate_digest,
            "plan": verification.plan_digest,
            "chain": verification.receipt_digests,
            "policy": verification.policy_digest,
        }
        mismatched = sorted(name for name in expected if expected[name] != found[name])
        if mismatched:
            reason = CutReason.POLICY_MISMATCH if mismatched == ["policy"] else CutReason.VERDICT_FAILED
            raise CutRefused(reason, f"the verification does not cover this {', '.join(mismatched)}")
        expires_at = min(verification.expires_at, plan.expires_at, *(r.expires_at for r in receipts))
        if now >= expires_at:
            raise CutRefused(CutReason.EXPIRED, "the plan, a receipt or the verification has expired")
        cut = PrivacyCut(
            cut_id=secrets.token_hex(16),
            event_id=secrets.token_hex(16),
            plan=plan,
            plan_digest=plan.digest,
            source_digest=expected["source"],  # type: ignore[arg-type]
            candidate_digest=expected["candidate"],  # type: ignore[arg-type]
            receipt_digests=verification.receipt_digests,
            verification_digest=verification.digest,
            policy_digest=policy_digest,
            expires_at=expires_at,
            reversible=verification.reversal is not None,
            lease_id=None if verification.reversal is None else verification.reversal.lease_id,
            token_namespace=None if verification.reversal is None else verification.reversal.namespace,
        )
        with self._lock:
            self._cuts[cut.cut_id] = _Sealed(cut, candidate.label, plan.max_uses)
        return cut

    def withdraw(self, cut: PrivacyCut) -> None:
        """Forget a seal (a reversible cut whose lease could not be written must never be admitted)."""
        with self._lock:
            sealed = self._cuts.get(cut.cut_id)
            if sealed is not None and sealed.cut == cut:
                del self._cuts[cut.cut_id]

    def is_sealed(self, cut: PrivacyCut) -> bool:
        with self._lock:
            sealed = self._cuts.get(cut.cut_id)
        return sealed is not None and sealed.cut == cut

    def admit(
        self,
        cut: PrivacyCut,
        *,
        candidate: CallProjection,
        target: str,
        consumer_kind: str,
        consumer_id: str,
        purpose: str,
        now: int,
        delivery_id: str | None = None,
    ) -> EgressDecision:
        """Admit the sealed candidate to its plan's target, consumer and purpose, using one disclosure.

        Redelivering the exact same delivery (same ``delivery_id``, same candidate and
        recipient) returns the same decision and uses nothing; anything else is refused
        with a typed :class:`SealRefused`.
        """
        plan = cut.plan
        checks = (
            (target != plan.target, SealReason.TARGET_SUBSTITUTION, "the plan names another target"),
            (
                (consumer_kind, consumer_id) != (plan.consumer_kind, plan.consumer_id),
                SealReason.CONSUMER_SUBSTITUTION,
                "the plan names another consumer",
            ),
            (purpose != plan.purpose, SealReason.PURPOSE_SUBSTITUTION, "the plan names another purpose"),
        )
        with self._lock:
            sealed = self._cuts.get(cut.cut_id)
            if sealed is None or sealed.cut != cut:
                raise SealRefused(SealReason.NOT_SEALED, "this authority sealed no such cut (prepare it again)")
            if candidate.digest != cut.candidate_digest:
                raise SealRefused(SealReason.CANDIDATE_MISMATCH, "the candidate is not the sealed candidate")
            for failed, reason, message in checks:
                if failed:
                    raise SealRefused(reason, message)
            if now >= cut.expires_at:
                raise SealRefused(SealReason.EXPIRED, "the seal has expired; prepare the cut again")
            if delivery_id is not None and delivery_id in sealed.deliveries:
                return sealed.deliveries[delivery_id]
            if sealed.uses_left <= 0:
                raise SealRefused(SealReason.USES_EXHAUSTED, f"all {plan.max_uses} disclosures of this cut are used")
            sealed.uses_left -= 1
            decision = EgressDecision(
                target=target,
                admitted=True,
                label=sealed.label,
                sealed_event=cut.event_id,
                uses_left=sealed.uses_left,
            )
            if delivery_id is not None:
                sealed.deliveries[delivery_id] = decision
            return decision
