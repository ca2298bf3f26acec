"""Preparing a reversible cut: the vault issues tokens, the profile's censor places them, the
core verifies and seals, and the lease binds the sealed cut — or nothing is kept at all.

The pseudonym map exists in this process only while the censor places the tokens; the
vault writes it encrypted, and everything returned (the cut, its receipts, the grant) holds
only the opaque lease id, the token namespace and digests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from lychd_core.digests import canonical_json
from lychd_core.errors import DurabilityRefused
from lychd_core.privacy.closed_vocabulary import ClosedVocabulary
from lychd_core.privacy.plan import DisclosurePlan
from lychd_core.privacy.prepare import Censored, CutProfile, PreparedCut, cut_policy_digest, verify_and_seal
from lychd_core.privacy.projection import CallProjection
from lychd_core.privacy.pseudonyms import ReversalSpec
from lychd_core.privacy.receipts import TransformationReceipt
from lychd_core.privacy.seal import SealAuthority
from lychd_core.privacy.vault.issue import BoundCut, IssuedTokens
from lychd_core.privacy.vault.lease import LeaseGrant, LeaseTerms, SensitiveValue
from lychd_core.privacy.vault.store import Vault


class ReversibleCutProfile(CutProfile, Protocol):
    """A cut profile whose censor replaces sensitive slots by vault-issued tokens."""

    def sensitive_values(
        self, source: CallProjection, plan: DisclosurePlan, vocabulary: ClosedVocabulary, options: BaseModel
    ) -> tuple[SensitiveValue, ...]:
        """The distinct values of the slots the plan marks reversible, each once, with its category."""
        ...

    def censor_reversible(
        self,
        source: CallProjection,
        plan: DisclosurePlan,
        vocabulary: ClosedVocabulary,
        options: BaseModel,
        *,
        tokens: Mapping[str, str],
        chain: Sequence[TransformationReceipt] = (),
    ) -> Censored:
        """The candidate with each value's slot holding its token (``tokens``: value → token)."""
        ...


@dataclass(frozen=True, slots=True)
class PreparedReversibleCut:
    """A sealed reversible cut and its lease; the map itself is only in the vault."""

    prepared: PreparedCut
    grant: LeaseGrant

    @property
    def lease_id(self) -> str:
        """The opaque lease reference: the only thing a checkpoint may keep."""
        return self.grant.lease_id

    def to_json(self) -> dict[str, Any]:
        """Digests, the verdict and the opaque lease reference (no text, no tokens, no map)."""
        return {
            **self.prepared.to_json(),
            "lease": {"lease_id": self.grant.lease_id, "expires_at": self.grant.expires_at},
        }


def check_durability(terms: LeaseTerms, plan: DisclosurePlan, source_expires_at: int | None, now: int) -> None:
    """Refuse before anything is minted when the lease could not outlive the remote wait."""
    bounds = {"plan expiry": plan.expires_at}
    if source_expires_at is not None:
        bounds["source expiry"] = source_expires_at
    name, bound = min(bounds.items(), key=lambda item: item[1])
    if terms.remote_deadline_at <= now:
        raise DurabilityRefused(
            f"the remote deadline {terms.remote_deadline_at} is not after now ({now}); nothing can come back in "
            "time: keep the workflow local or use an irreversible cut"
        )
    if terms.needed_until > bound:
        raise DurabilityRefused(
            f"the lease must last until {terms.needed_until} (deadline {terms.remote_deadline_at} + return window "
            f"{terms.return_window}s) but the {name} is {bound}; keep the workflow local or use an irreversible cut"
        )


def prepare_reversible_cut(
    profile: ReversibleCutProfile,
    source: CallProjection,
    plan: DisclosurePlan,
    vocabulary: ClosedVocabulary,
    options: BaseModel,
    authority: SealAuthority,
    vault: Vault,
    terms: LeaseTerms,
    *,
    now: int,
    chain: Sequence[TransformationReceipt] = (),
    origin_digest: str | None = None,
    source_expires_at: int | None = None,
) -> PreparedReversibleCut:
    """Issue, censor, verify independently, seal reversibly, and lease; any refusal leaves no seal and no lease."""
    vault.hardening.require()
    check_durability(terms, plan, source_expires_at, now)
    values = profile.sensitive_values(source, plan, vocabulary, options)
    policy = cut_policy_digest(f"{profile.name}@{profile.revision}", options, profile.grammar, vocabulary)
    sealed: list[PreparedCut] = []

    def bind(issued: IssuedTokens) -> BoundCut:
        reversal = ReversalSpec(
            lease_id=issued.lease_id,
            namespace=issued.namespace,
            categories=tuple(sorted({value.category for value in values})),
        )
        tokens = {value.value: token for value, token in zip(values, issued.tokens, strict=True)}
        censored = profile.censor_reversible(source, plan, vocabulary, options, tokens=tokens, chain=chain)
        del tokens
        prepared = verify_and_seal(
            source,
            censored,
            plan,
            profile.grammar,
            vocabulary,
            policy,
            authority,
            now=now,
            transformer=f"{profile.name}@{profile.revision}",
            chain=chain,
            origin_digest=origin_digest,
            reversal=reversal,
        )
        sealed.append(prepared)
        text = canonical_json(censored.candidate.to_json()).decode("utf-8")
        return BoundCut(prepared.cut, prepared.verification, source.label, text, source_expires_at)

    try:
        grant = vault.create_cut_lease(terms, values, bind)
    except BaseException:
        for prepared in sealed:
            authority.withdraw(prepared.cut)  # a seal without its lease would disclose unrecoverable tokens
        raise
    return PreparedReversibleCut(sealed[0], grant)
