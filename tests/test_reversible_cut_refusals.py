"""A reversible cut refuses whole: no seal, no lease, no key left behind; the verifier rejects
any reversible candidate that is not exactly the source with one token per owner."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from lychd_closed_diagnostic import PROFILE, REVERSIBLE_PROFILE

from lychd_core.digests import canonical_json
from lychd_core.errors import CutReason, CutRefused, DurabilityRefused, LeaseStateError, NonceReuseError
from lychd_core.privacy import PrivacyCut, SealAuthority, verify_cut
from lychd_core.privacy.prepare import prepare_cut
from lychd_core.privacy.pseudonyms import ReversalSpec
from lychd_core.privacy.vault import SensitiveValue, Vault
from lychd_core.privacy.vault.issue import BoundCut, IssuedTokens
from tests.support.cuts import NOW, OPTIONS, OWNER, VOCABULARY, plan_for, projection_of, record_text, report_projection
from tests.support.reversible import OPTIONS as REVERSIBLE_OPTIONS
from tests.support.reversible import open_vault, prepare_reversible, slot_tokens, terms
from tests.support.sensitive import SENSITIVE
from tests.support.vaults import Clock


class RecordingAuthority(SealAuthority):
    def __init__(self) -> None:
        super().__init__()
        self.made: list[PrivacyCut] = []

    def seal(self, **kwargs: Any) -> PrivacyCut:
        cut = super().seal(**kwargs)
        self.made.append(cut)
        return cut


def _nothing_leased(vault: Vault) -> bool:
    return sum(vault.counts().values()) == 0 and not (vault.keys.lease_ids() - vault.pooled_ids)


@pytest.mark.parametrize(
    ("plan_changes", "lease_changes", "refusal"),
    [
        ({"reversible_categories": []}, {}, CutRefused),
        ({"expires_at": NOW + 800}, {}, DurabilityRefused),  # deadline + window outlives the plan
        ({}, {"remote_deadline_at": NOW}, DurabilityRefused),
    ],
)
def test_a_refused_preparation_leaves_no_seal_and_no_lease(
    tmp_path: Path, plan_changes: dict[str, Any], lease_changes: dict[str, Any], refusal: type[Exception]
) -> None:
    authority = RecordingAuthority()
    with open_vault(tmp_path) as vault:
        with pytest.raises(refusal) as refused:
            prepare_reversible(
                vault, report_projection(), authority, lease_terms=terms(**lease_changes), **plan_changes
            )
        assert not authority.made and _nothing_leased(vault)
    if refusal is DurabilityRefused:
        assert "irreversible cut" in str(refused.value)


def test_a_lease_that_cannot_be_written_withdraws_the_seal(tmp_path: Path) -> None:
    authority = RecordingAuthority()
    root = tmp_path
    repeating = Vault.open(
        root / "s" / "v.sqlite3", root / "k" / "v.keys", clock=Clock(NOW), nonce_source=lambda: bytes(12)
    )
    with repeating as vault:
        with pytest.raises(NonceReuseError):
            prepare_reversible(vault, report_projection(), authority)
        assert len(authority.made) == 1 and not authority.is_sealed(authority.made[0])
        assert _nothing_leased(vault)


def test_the_reversible_profile_never_censors_without_a_lease_and_the_irreversible_one_never_tokenizes() -> None:
    source = report_projection()
    plan = plan_for(source, reversible_categories=["owner"])
    with pytest.raises(CutRefused, match="vault lease"):
        REVERSIBLE_PROFILE.censor(source, plan, VOCABULARY, REVERSIBLE_OPTIONS)
    irreversible = prepare_cut(PROFILE, source, plan, VOCABULARY, OPTIONS, SealAuthority(), now=NOW)
    assert not irreversible.cut.reversible and irreversible.cut.lease_id is None
    assert "<redacted>" in irreversible.candidate.items[0].text and "<<ps:" not in irreversible.candidate.items[0].text


def _verify(prepared: Any, texts: list[str], reversal: ReversalSpec | None, **plan_changes: Any) -> CutRefused:
    plan = prepared.cut.plan.model_copy(update=plan_changes) if plan_changes else prepared.cut.plan
    verification = verify_cut(
        source=prepared.source,
        candidate=prepared.source.replaced(texts),
        plan=plan,
        receipts=prepared.receipts,
        grammar=REVERSIBLE_PROFILE.grammar,
        vocabulary=VOCABULARY,
        policy_digest=prepared.receipts[-1].policy_digest,
        now=NOW,
        transformer=REVERSIBLE_PROFILE.pin,
        reversal=reversal,
    )
    with pytest.raises(CutRefused) as refused:
        verification.require()
    return refused.value


def test_the_verifier_rejects_every_reversible_candidate_that_is_not_the_exact_tokenized_source(
    tmp_path: Path,
) -> None:
    second = SENSITIVE[1]
    source = projection_of(
        record_text("jinja2 3.1.2 vulnerable - - -", "requests 2.31.0 clean - - -", owner=OWNER)
        + record_text("urllib3 1.26.5 clean - - -", owner=second).split("\n", 1)[1]
    )
    with open_vault(tmp_path) as vault:
        reversible = prepare_reversible(vault, source)
        other = prepare_reversible(vault, source)
    prepared, reversal = reversible.prepared, reversible.prepared.verification.reversal
    text = prepared.candidate.items[0].text
    mine, theirs = slot_tokens(reversible), slot_tokens(other)
    assert len(set(mine)) == 2 and mine[0] == mine[1] != mine[2]
    attacks = {
        "foreign namespace": (text.replace(mine[0], theirs[0]), CutReason.RECONSTRUCTION_MISMATCH),
        "raw owner in a slot": (text.replace(mine[2], second), CutReason.RECONSTRUCTION_MISMATCH),
        "two owners, one token": (text.replace(mine[2], mine[0]), CutReason.RECONSTRUCTION_MISMATCH),
        "one owner, two tokens": (text.replace(mine[0], mine[2], 1), CutReason.RECONSTRUCTION_MISMATCH),
        "fixed position changed": (text.replace("clean", "vulnerable", 1), CutReason.RECONSTRUCTION_MISMATCH),
        "redacted, claimed reversible": (
            re.sub(r"<<ps:[^>]+>>", "<redacted>", text),
            CutReason.RECONSTRUCTION_MISMATCH,
        ),
    }
    for name, (attacked, reason) in attacks.items():
        assert _verify(prepared, [attacked], reversal).reason is reason, name
    assert _verify(prepared, [text], reversal, reversible_categories=()).reason is CutReason.PLAN_MISMATCH
    assert _verify(prepared, [text], None).reason is CutReason.LOST_UTILITY  # an irreversible cut loses the owner
    unnamed = _verify(prepared, [text], None, semantic_invariants=("dependencies",))
    assert unnamed.reason is CutReason.RECONSTRUCTION_MISMATCH  # tokens, but no lease named


def test_the_vault_leases_only_the_cut_sealed_around_its_own_tokens(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        first = prepare_reversible(vault, report_projection())
        cut, verification = first.prepared.cut, first.prepared.verification
        values = [SensitiveValue(category="owner", value=OWNER)]
        text = canonical_json(first.prepared.candidate.to_json()).decode()

        def foreign(issued: IssuedTokens) -> BoundCut:
            return BoundCut(cut, verification, first.prepared.source.label, text)

        def other_candidate(issued: IssuedTokens) -> BoundCut:
            renamed = dataclasses.replace(cut, lease_id=issued.lease_id, token_namespace=issued.namespace)
            return BoundCut(renamed, verification, first.prepared.source.label, text.replace("3.1.3", "3.1.2"))

        for bind, message in ((foreign, "not bound to lease"), (other_candidate, "not the one cut")):
            with pytest.raises(LeaseStateError, match=message):
                vault.create_cut_lease(terms(), values, bind)
        assert sum(vault.counts().values()) == 1  # only the first, honest lease
        assert vault.keys.lease_ids() - vault.pooled_ids == {first.lease_id}
