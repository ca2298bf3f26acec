"""The vault bound to a real sealed Privacy Cut, and the restored label at the egress gate."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from lychd_core.digests import json_digest
from lychd_core.errors import LeaseStateError
from lychd_core.privacy import LOCAL, EgressTarget, label_problems
from lychd_core.privacy.vault import CutBinding, Sink, rehydrate
from tests.support import vaults
from tests.support.cuts import prepare, report_projection
from tests.support.vaults import SCHEMA, claim_for, lease_request, model_return, open_vault, tokens_of


def test_a_lease_binds_a_sealed_reversible_cut_by_ids_and_digests() -> None:
    prepared = prepare(report_projection())
    cut = dataclasses.replace(prepared.cut, reversible=True)
    binding = CutBinding.from_cut(cut, prepared.verification, prepared.source.label, source_expires_at=cut.expires_at)
    assert (binding.cut_id, binding.plan_digest, binding.source_digest) == (
        cut.cut_id,
        cut.plan_digest,
        cut.source_digest,
    )
    assert binding.cut_digest == json_digest(cut.to_json()) and binding.cut_expires_at == cut.expires_at
    assert (binding.target, binding.purpose) == (cut.plan.target, cut.plan.purpose)
    assert binding.verifier == prepared.verification.verifier and binding.policy_digest == cut.policy_digest
    assert binding.source_label == prepared.source.label


def test_an_irreversible_or_unverified_cut_cannot_have_a_lease() -> None:
    prepared = prepare(report_projection())
    with pytest.raises(LeaseStateError, match="irreversible"):
        CutBinding.from_cut(prepared.cut, prepared.verification, prepared.source.label)
    reversible = dataclasses.replace(prepared.cut, reversible=True)
    failed = prepared.verification.model_copy(update={"verdict": "fail"})
    with pytest.raises(LeaseStateError, match="not the passing one"):
        CutBinding.from_cut(reversible, failed, prepared.source.label)


def test_a_rehydrated_result_is_refused_by_every_remote_target_at_egress(tmp_path: Path) -> None:
    prepared = prepare(report_projection())
    cut = dataclasses.replace(prepared.cut, reversible=True)
    binding = CutBinding.from_cut(cut, prepared.verification, prepared.source.label)
    schema = SCHEMA.model_copy(
        update={"marks": tuple(mark.model_copy(update={"purpose": binding.purpose}) for mark in SCHEMA.marks)}
    )
    request = lease_request(cut=binding, schema_digest=schema.digest, remote_deadline_at=cut.expires_at - 600)
    clock = vaults.Clock(now=cut.expires_at - 3600)
    with open_vault(tmp_path, clock) as vault:
        grant = vault.create_lease(request, vaults.VALUES, vaults.candidate)
        returned = model_return(*tokens_of(grant))
        claim = claim_for(returned)
        vault.claim(grant.lease_id, claim)
        result = rehydrate(vault, grant.lease_id, claim, returned, schema)
    assert result.value_for(Sink.LOCAL_VIEW)["owner"] == vaults.OWNER
    assert result.label.privacy_class == prepared.source.label.privacy_class
    wide_open = EgressTarget(max_class="restricted", allow_unknown_lineage=True)
    assert "handling constraint local-only" in label_problems(result.label, wide_open)
    assert label_problems(result.label, LOCAL) == ()
    assert result.receipt.cut_id == cut.cut_id and result.receipt.policy_digest == cut.policy_digest
