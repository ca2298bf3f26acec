"""``closed-diagnostic-reversible@1``: the same closed grammar, with owner slots pseudonymized.

Where ``closed-diagnostic@1`` redacts every owner value, this profile puts a vault-issued
token in each owner slot (the same token for the same owner), so that a model's structured
answer naming that token can be restored locally. It is its own profile, not a new revision
of ``closed-diagnostic``: a deployment that pins revision 1 keeps getting irreversible cuts.
It prepares only through ``lychd_core.privacy.reversible.prepare_reversible_cut``, with a
vault lease, and only when the plan marks the ``owner`` category reversible.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from lychd_closed_diagnostic.profile import ClosedDiagnosticOptions, ClosedDiagnosticProfile, censored_with_receipt
from lychd_core.errors import CutReason, CutRefused, PrivacyRefusal

if TYPE_CHECKING:  # the censor, the cut and the vault (cryptography) load when a cut is prepared (issue 30)
    from lychd_core.privacy import CallProjection, ClosedVocabulary, DisclosurePlan, TransformationReceipt
    from lychd_core.privacy.prepare import Censored
    from lychd_core.privacy.vault.lease import SensitiveValue

_SLOT = re.compile(r" owner=([^\n]*)\n")


class ReversibleOptions(ClosedDiagnosticOptions):
    """Options of ``closed-diagnostic-reversible@1``: the closed-diagnostic options and the lease terms."""

    deadline_seconds: int = Field(
        default=900, gt=0, strict=True, description="Seconds after preparation by which the remote call must return."
    )
    return_window_seconds: int = Field(
        default=300, ge=0, strict=True, description="Seconds after the deadline a return is still accepted."
    )
    retention_seconds: int = Field(
        default=86_400, gt=0, strict=True, description="Longest a rehydrated result may be kept."
    )
    lock_all_memory: bool = Field(
        default=False,
        description="Vault hardening: mlockall(MCL_CURRENT|MCL_FUTURE) the whole process that holds plaintext; "
        "fails closed without CAP_IPC_LOCK or an unlimited RLIMIT_MEMLOCK.",
    )
    truncate_wal_on_erasure: bool = Field(
        default=False,
        description="Vault: truncate the database WAL after every erasure, not only at purge and close "
        "(no stale frame keeps an erased wrapped key; costs a checkpoint per lease).",
    )


class ReversibleClosedDiagnosticProfile(ClosedDiagnosticProfile):
    """Closed diagnostic records whose owner slots carry lease tokens instead of a redaction."""

    name = "closed-diagnostic-reversible"
    revision = 1
    options_model = ReversibleOptions

    def _checked(self, options: BaseModel) -> ReversibleOptions:
        if not isinstance(options, ReversibleOptions):
            raise PrivacyRefusal(f"{self.pin} takes ReversibleOptions, got {type(options).__name__}")
        return options

    def censor(
        self,
        source: CallProjection,
        plan: DisclosurePlan,
        vocabulary: ClosedVocabulary,
        options: BaseModel,
        *,
        chain: Sequence[TransformationReceipt] = (),
    ) -> Censored:
        """Refused: a reversible cut needs a vault lease (``prepare_reversible_cut``)."""
        raise CutRefused(
            CutReason.PLAN_MISMATCH,
            f"{self.pin} only prepares with a vault lease (lychd cut prepare with this profile pinned, or "
            "prepare_reversible_cut); pin closed-diagnostic@1 for an irreversible cut",
        )

    def sensitive_values(
        self, source: CallProjection, plan: DisclosurePlan, vocabulary: ClosedVocabulary, options: BaseModel
    ) -> tuple[SensitiveValue, ...]:
        """Each distinct owner value once, in order of first appearance."""
        from lychd_closed_diagnostic.censor import GRAMMAR, OWNER_CATEGORY, _owners, check_labels
        from lychd_core.privacy.vault.lease import SensitiveValue

        checked = self._checked(options)
        if not source.items:
            raise CutRefused(CutReason.EMPTY, "the projection has no items")
        check_labels([item.label for item in source.items], frozenset(checked.allowed_categories), checked.max_parents)
        if OWNER_CATEGORY not in plan.reversible_categories:
            raise CutRefused(
                CutReason.PLAN_MISMATCH,
                f"the plan does not mark the {OWNER_CATEGORY!r} category reversible (reversible_categories); "
                "add it, or pin closed-diagnostic@1 for an irreversible cut",
            )
        seen: dict[str, None] = {}
        for item in source.items:
            _owners(item.text, vocabulary, f"{item.section}[{item.key}]")  # refuses anything off the grammar
            seen.update(dict.fromkeys(_SLOT.findall(item.text, len(GRAMMAR.header) + 1)))
        return tuple(SensitiveValue(category=OWNER_CATEGORY, value=value) for value in seen)

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
        """The candidate with every owner slot holding its owner's token, and the terminal receipt."""
        from lychd_closed_diagnostic.censor import GRAMMAR, _check_no_leak, _owners
        from lychd_core.privacy.prepare import cut_policy_digest
        from lychd_core.privacy.pseudonyms import TOKEN_RE

        checked = self._checked(options)
        texts: list[str] = []
        owners: set[str] = set()
        count = 0
        for item in source.items:
            item_owners, records = _owners(item.text, vocabulary, f"{item.section}[{item.key}]")
            missing = item_owners - tokens.keys()
            if missing:
                raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, f"{len(missing)} owner value(s) have no token")
            owners.update(item_owners)
            count += records
            texts.append(_SLOT.sub(lambda match: f" owner={tokens[match.group(1)]}\n", item.text))
        if any(TOKEN_RE.fullmatch(token) is None for token in tokens.values()):
            raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, "a token is not lease-token shaped")
        # tokens are random; only the text around them must be free of owner values
        _check_no_leak([TOKEN_RE.sub("", text) for text in texts], owners, vocabulary)
        candidate = source.replaced(texts)
        policy = cut_policy_digest(self.pin, checked, GRAMMAR, vocabulary)
        return censored_with_receipt(source, candidate, plan, chain, self.pin, policy, "pseudonymize", count)


REVERSIBLE_PROFILE = ReversibleClosedDiagnosticProfile()
