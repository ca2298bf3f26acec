"""Lease lifecycle: creation refusals, idempotent claim, expiry, revocation, purge, fail closed."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from lychd_core.errors import (
    ClaimConflict,
    DurabilityRefused,
    LeaseExpired,
    LeaseNotFound,
    LeaseStateError,
    MapTooLarge,
    ReversibleCutsDisabled,
    VaultStoreError,
)
from lychd_core.privacy.vault import HardeningCheck, HardeningReport, LeaseState, SensitiveValue, rehydrate
from tests.support.vaults import (
    SCHEMA,
    T0,
    Clock,
    claim_for,
    cut_binding,
    model_return,
    new_lease,
    open_vault,
    tokens_of,
)


def test_a_lease_records_its_bindings_and_starts_active(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        grant = new_lease(vault)
        view = vault.get(grant.lease_id)
    assert view.state is LeaseState.ACTIVE and view.key_present and view.claim is None
    lease = view.lease
    assert lease.schema_id == "PseudonymMapLease@1" and lease.namespace == grant.namespace
    assert lease.candidate_digest == grant.candidate_digest and lease.key_epoch == 1
    assert lease.expires_at == T0 + 600 + 300  # deadline + return window, not longer
    assert "Acme" not in lease.model_dump_json() and "Acme" not in grant.candidate


def test_each_lease_gets_its_own_unpredictable_namespace(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        spaces = {new_lease(vault).namespace for _ in range(5)}
    assert len(spaces) == 5


def test_claim_is_idempotent_and_a_second_claimant_fails(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        grant = new_lease(vault)
        claim = claim_for({"any": 1})
        first = vault.claim(grant.lease_id, claim)
        again = vault.claim(grant.lease_id, claim)
        assert first == again and first.state is LeaseState.CLAIMED and first.claim == claim
        for other in (
            claim_for({"any": 1}, principal="agent-2"),
            claim_for({"other": 1}),
            claim_for({"any": 1}, station="station-b"),
        ):
            with pytest.raises(ClaimConflict):
                vault.claim(grant.lease_id, other)
        assert vault.get(grant.lease_id).claim == claim


@pytest.mark.parametrize("change", [{"station": "station-b"}, {"run_id": "run-2"}, {"attempt": 2}])
def test_a_claim_must_match_the_leased_run_attempt_and_station(tmp_path: Path, change: dict[str, object]) -> None:
    with open_vault(tmp_path) as vault:
        grant = new_lease(vault)
        with pytest.raises(ClaimConflict, match="bound to another"):
            vault.claim(grant.lease_id, claim_for({}, **change))
        assert vault.get(grant.lease_id).state is LeaseState.ACTIVE


def test_an_expired_lease_cannot_be_claimed_and_loses_its_key(tmp_path: Path) -> None:
    clock = Clock()
    with open_vault(tmp_path, clock) as vault:
        grant = new_lease(vault)
        clock.now = grant.expires_at
        with pytest.raises(LeaseExpired):
            vault.claim(grant.lease_id, claim_for({}))
        view = vault.get(grant.lease_id)
        assert view.state is LeaseState.EXPIRED and not view.key_present


def test_a_claimed_lease_expires_before_rehydration(tmp_path: Path) -> None:
    clock = Clock()
    with open_vault(tmp_path, clock) as vault:
        grant = new_lease(vault)
        returned = model_return(*tokens_of(grant))
        claim = claim_for(returned)
        vault.claim(grant.lease_id, claim)
        clock.now = grant.expires_at + 1
        with pytest.raises(LeaseExpired):
            rehydrate(vault, grant.lease_id, claim, returned, SCHEMA)
        assert vault.get(grant.lease_id).state is LeaseState.EXPIRED


def test_revoke_ends_either_nonterminal_state_and_terminals_absorb(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        active, claimed = new_lease(vault), new_lease(vault)
        vault.claim(claimed.lease_id, claim_for({}))
        for grant in (active, claimed):
            view = vault.revoke(grant.lease_id)
            assert view.state is LeaseState.REVOKED and not view.key_present
            assert vault.revoke(grant.lease_id).state is LeaseState.REVOKED
            with pytest.raises(LeaseStateError):
                vault.claim(grant.lease_id, claim_for({}))


def test_purge_expires_what_is_due_and_erases_it(tmp_path: Path) -> None:
    clock = Clock()
    with open_vault(tmp_path, clock) as vault:
        due = new_lease(vault)
        later = new_lease(vault, remote_deadline_at=T0 + 1800)
        clock.now = due.expires_at
        report = vault.purge()
        assert report["expired"] == 1 and report["erased"] == 1
        assert vault.get(due.lease_id).state is LeaseState.EXPIRED
        assert vault.get(later.lease_id).state is LeaseState.ACTIVE
        assert vault.keys.lease_ids() - vault.pooled_ids == {later.lease_id}
        assert vault.purge() == {"expired": 0, "erased": 0, "retired_epochs": 0}


def test_key_rotation_keeps_old_leases_readable_until_they_end(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        old = new_lease(vault)
        assert vault.keys.rotate(now=T0) == 2
        new = new_lease(vault)
        assert (vault.get(old.lease_id).lease.key_epoch, vault.get(new.lease_id).lease.key_epoch) == (1, 2)
        assert vault.purge()["retired_epochs"] == 0
        vault.revoke(old.lease_id)
        assert vault.purge()["retired_epochs"] == 1


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"remote_deadline_at": T0 + 3500, "return_window": 200}, "cut expiry is"),
        ({"cut": cut_binding(source_expires_at=T0 + 100)}, "source expiry is"),
        ({"remote_deadline_at": T0}, "not after now"),
    ],
)
def test_reversible_preparation_refuses_when_durability_cannot_cover_the_wait(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    with open_vault(tmp_path) as vault:
        with pytest.raises(DurabilityRefused, match=message):
            new_lease(vault, **changes)
        assert sum(vault.counts().values()) == 0 and vault.keys.lease_ids() == set()


def test_unknown_leases_and_bad_values_are_typed(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        with pytest.raises(LeaseNotFound):
            vault.get("lease_missing")
        with pytest.raises(MapTooLarge):
            new_lease(vault, values=[SensitiveValue(category="owner", value="x" * (1 << 20))])
    with pytest.raises(ValidationError) as raised:
        SensitiveValue(category="Owner!", value="Acme Secret Holdings GmbH")
    assert "Acme" not in str(raised.value)


def test_the_key_store_must_live_apart_from_the_database(tmp_path: Path) -> None:
    from lychd_core.privacy.vault import Vault

    with pytest.raises(VaultStoreError, match="apart"):
        Vault.open(tmp_path / "vault.sqlite3", tmp_path / "vault.keys")
    with open_vault(tmp_path):
        pass
    assert (tmp_path / "keys" / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (tmp_path / "keys").stat().st_mode & 0o077 == 0
    assert (tmp_path / "keys" / "vault.keys").stat().st_mode & 0o077 == 0


def test_fail_closed_disables_reversible_cuts_with_the_reason(tmp_path: Path) -> None:
    failed = HardeningReport((HardeningCheck("locked_buffers", False, "mlock failed: ENOMEM"),))
    with open_vault(tmp_path, hardening=failed) as vault:
        with pytest.raises(ReversibleCutsDisabled, match="locked_buffers: mlock failed"):
            new_lease(vault)
        assert vault.counts()["ACTIVE"] == 0


def test_an_erasure_secret_without_a_lease_row_is_removed_after_the_grace_period(tmp_path: Path) -> None:
    clock = Clock()
    with open_vault(tmp_path, clock) as vault:
        vault.keys.add_secret("lease_crashed_before_its_row", 1, now=clock.now)
        assert vault.purge()["erased"] == 0  # maybe a concurrent create: wait
        clock.now += 601
        assert vault.purge()["erased"] == 1 and vault.keys.lease_ids() == set()


def test_reserved_secrets_are_durable_before_use_and_never_outlive_the_vault(tmp_path: Path) -> None:
    clock = Clock()
    with open_vault(tmp_path, clock) as vault:
        first = new_lease(vault)
        pooled = vault.pooled_ids
        assert pooled and first.lease_id not in pooled and vault.keys.lease_ids() == pooled | {first.lease_id}
        second = new_lease(vault)
        assert second.lease_id in pooled  # taken from the reservation: no key-store commit of its own
        clock.now += 301
        vault.purge()  # a stale reservation is destroyed by its owner, before anyone could call it an orphan
        assert vault.pooled_ids == frozenset() and vault.keys.lease_ids() == {first.lease_id, second.lease_id}
        third = new_lease(vault, remote_deadline_at=clock.now + 600, cut=cut_binding(cut_expires_at=clock.now + 3600))
    with open_vault(tmp_path, clock) as reopened:  # closing destroyed the unused reservation
        assert reopened.keys.lease_ids() == {first.lease_id, second.lease_id, third.lease_id}
