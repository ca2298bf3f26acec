"""What the vault hands a reversible preparation (tokens) and what it gets back (the sealed cut)."""

from __future__ import annotations

from dataclasses import dataclass, field

from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy.seal import PrivacyCut
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
