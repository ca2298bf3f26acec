"""Preparing a cut: a profile's censor proposes, the core verifies, the authority seals.

``CutProfile`` extends the privacy-profile family protocol with a declared grammar
and a deterministic censor; the core never trusts the censor's word — the verifier
re-parses everything before the authority seals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from lychd_core.digests import json_digest
from lychd_core.families import PrivacyProfile
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy.closed_vocabulary import ClosedVocabulary
from lychd_core.privacy.grammar import RecordGrammar
from lychd_core.privacy.plan import DisclosurePlan
from lychd_core.privacy.projection import CallProjection
from lychd_core.privacy.pseudonyms import ReversalSpec
from lychd_core.privacy.receipts import TransformationReceipt
from lychd_core.privacy.seal import PrivacyCut, SealAuthority
from lychd_core.privacy.verify import CutVerification, verify_cut


def cut_policy_digest(pin: str, options: BaseModel, grammar: RecordGrammar, vocabulary: ClosedVocabulary) -> str:
    """The policy a cut is made under: profile pin, its options, grammar and vocabulary digest."""
    return json_digest(
        {
            "profile": pin,
            "options": options.model_dump(mode="json"),
            "grammar": grammar.name,
            "vocabulary": vocabulary.digest,
        }
    )


@dataclass(frozen=True, slots=True)
class Censored:
    """A censor's irreversible candidate and the receipts of its stages (appended to any given chain)."""

    candidate: CallProjection
    receipts: tuple[TransformationReceipt, ...]


class ImportedReport(Protocol):
    """A report turned into a projection by an importer stage, with that stage's receipt."""

    @property
    def projection(self) -> CallProjection: ...

    @property
    def report_digest(self) -> str: ...

    def receipt(self, plan: DisclosurePlan, policy_digest: str) -> TransformationReceipt: ...


class ReportImporter(Protocol):
    """Turns one report format (for example ``pip-audit`` JSON) into the profile's grammar."""

    def import_report(self, data: bytes, owner: str, label: PrivatizationLabel) -> ImportedReport: ...


class CutProfile(PrivacyProfile, Protocol):
    """A privacy profile that can prepare an irreversible cut over a closed grammar."""

    @property
    def grammar(self) -> RecordGrammar: ...

    @property
    def importers(self) -> Mapping[str, ReportImporter]:
        """Report formats this profile can import, by name."""
        ...

    def censor(
        self,
        source: CallProjection,
        plan: DisclosurePlan,
        vocabulary: ClosedVocabulary,
        options: BaseModel,
        *,
        chain: Sequence[TransformationReceipt] = (),
    ) -> Censored: ...


@dataclass(frozen=True, slots=True)
class PreparedCut:
    """Everything one preparation produced; ``cut`` is valid only in the authority that sealed it."""

    source: CallProjection
    candidate: CallProjection
    receipts: tuple[TransformationReceipt, ...]
    verification: CutVerification
    cut: PrivacyCut

    def to_json(self) -> dict[str, Any]:
        """Digests and verdict only (no text): what ``lychd cut prepare --json`` reports."""
        return {
            "cut": self.cut.public_evidence(),
            "verification": self.verification.to_json(),
            "receipts": [receipt.to_json() for receipt in self.receipts],
        }


def prepare_cut(
    profile: CutProfile,
    source: CallProjection,
    plan: DisclosurePlan,
    vocabulary: ClosedVocabulary,
    options: BaseModel,
    authority: SealAuthority,
    *,
    now: int,
    chain: Sequence[TransformationReceipt] = (),
    origin_digest: str | None = None,
) -> PreparedCut:
    """Censor, verify independently, and seal; any refusal is a typed ``CutRefused``."""
    censored = profile.censor(source, plan, vocabulary, options, chain=chain)
    policy = cut_policy_digest(f"{profile.name}@{profile.revision}", options, profile.grammar, vocabulary)
    return verify_and_seal(
        source, censored, plan, profile.grammar, vocabulary, policy, authority,
        now=now, transformer=f"{profile.name}@{profile.revision}", chain=chain, origin_digest=origin_digest,
    )  # fmt: skip


def verify_and_seal(
    source: CallProjection,
    censored: Censored,
    plan: DisclosurePlan,
    grammar: RecordGrammar,
    vocabulary: ClosedVocabulary,
    policy: str,
    authority: SealAuthority,
    *,
    now: int,
    transformer: str,
    chain: Sequence[TransformationReceipt] = (),
    origin_digest: str | None = None,
    reversal: ReversalSpec | None = None,
) -> PreparedCut:
    """Verify a censored candidate apart from its censor, then seal it (with ``reversal``, bound to a lease).

    ``transformer`` is the profile's pin and ``chain`` the receipts the caller handed the
    censor: the verifier holds the censor's receipts to exactly those plus the one it derives.
    """
    verification = verify_cut(
        source=source,
        candidate=censored.candidate,
        plan=plan,
        receipts=censored.receipts,
        grammar=grammar,
        vocabulary=vocabulary,
        policy_digest=policy,
        now=now,
        transformer=transformer,
        chain=chain,
        origin_digest=origin_digest,
        reversal=reversal,
    ).require()
    cut = authority.seal(
        source=source,
        candidate=censored.candidate,
        plan=plan,
        receipts=censored.receipts,
        verification=verification,
        policy_digest=policy,
        now=now,
    )
    return PreparedCut(source, censored.candidate, censored.receipts, verification, cut)
