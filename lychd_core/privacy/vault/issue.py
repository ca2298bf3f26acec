"""What the vault hands a reversible preparation (tokens) and what it gets back (the sealed cut)."""

from __future__ import annotations

from dataclasses import dataclass, field

from lychd_core.digests import text_digest
from lychd_core.errors import LeaseStateError
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy.seal import PrivacyCut
from lychd_core.privacy.vault.lease import CutBinding, LeaseRequest, LeaseTerms, durable_expiry
from lychd_core.privacy.verify import CutVerification


@dataclass(frozen=True, slots=True)
class IssuedTokens:
    """One token per sensitive value, in the order given; the lease id and namespace they belong to."""

    lease_id: str
    namespace: str
    tokens: tuple[str, ...] = field(repr=False)


@dataclass(frozen=True, slots=True)
class BoundCut:
    """A reversible cut sealed around issued tokens, with the candidate text whose digest it binds."""

    cut: PrivacyCut
    verification: CutVerification
    source_label: PrivatizationLabel
    candidate: str = field(repr=False)
    source_expires_at: int | None = None


def request_for_cut(terms: LeaseTerms, issued: IssuedTokens, bound: BoundCut, now: int) -> LeaseRequest:
    """The lease request binding ``bound``'s cut, which must name this lease, its namespace and candidate."""
    cut = bound.cut
    if (cut.lease_id, cut.token_namespace) != (issued.lease_id, issued.namespace):
        raise LeaseStateError(f"cut {cut.event_id} is not bound to lease {issued.lease_id} and its namespace")
    if cut.candidate_digest != text_digest(bound.candidate):
        raise LeaseStateError(f"the candidate given is not the one cut {cut.event_id} sealed")
    binding = CutBinding.from_cut(
        cut, bound.verification, bound.source_label, source_expires_at=bound.source_expires_at
    )
    request = terms.bind(binding)
    durable_expiry(request, now)  # against the sealed cut's own expiry
    return request
