"""The vault's key store is held to ``cache.key``'s rules and more: never recreated, never exposed, never foreign.

Also: a 0-byte vault is not an empty vault; a rehydration refused for unproven hardening
revokes the lease instead of leaving it CLAIMED; a vault copy restored from before a
claim cannot hand the lease to a second principal (the claim is on record in the key store).
"""

from __future__ import annotations

import os
import pwd
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lychd_core.errors import (
    ClaimConflict,
    KeyStoreError,
    KeyStoreExposed,
    KeyStoreMissing,
    ReversibleCutsDisabled,
    VaultIntegrityError,
)
from lychd_core.privacy.vault import HardeningReport, LeaseState, Vault, rehydrate
from lychd_core.privacy.vault.hardening import HardeningCheck
from tests.support.sqlite_files import connected
from tests.support.vaults import SCHEMA, Clock, claim_for, model_return, new_lease, open_vault, tokens_of

FAILED = HardeningReport((HardeningCheck("locked_buffers", False, "mlock failed: ENOMEM"),))


def _paths(tmp: Path) -> tuple[Path, Path]:
    return tmp / "state" / "vault.sqlite3", tmp / "keys" / "vault.keys"


def _with_a_lease(tmp: Path) -> str:
    with open_vault(tmp) as vault:
        return new_lease(vault).lease_id


def test_a_missing_key_store_is_refused_and_never_recreated(tmp_path: Path) -> None:
    lease_id = _with_a_lease(tmp_path)
    vault_path, keys = _paths(tmp_path)
    keys.unlink()
    with pytest.raises(KeyStoreMissing, match="never recreated") as caught:
        open_vault(tmp_path)
    assert isinstance(caught.value, FileNotFoundError) and not keys.exists()
    assert str(keys) in str(caught.value) and lease_id not in str(caught.value)
    vault_path.unlink()  # the documented way to start over: both go
    with open_vault(tmp_path) as vault:
        assert vault.counts()["ACTIVE"] == 0 and keys.exists()


@pytest.mark.parametrize("mode", [0o644, 0o604, 0o660, 0o606, 0o640])
def test_a_key_store_others_may_read_or_write_is_refused(tmp_path: Path, mode: int) -> None:
    _with_a_lease(tmp_path)
    keys = _paths(tmp_path)[1]
    keys.chmod(mode)
    before = keys.read_bytes()
    with pytest.raises(KeyStoreExposed, match=f"mode {mode:o}.*chmod 600"):
        open_vault(tmp_path)
    assert keys.read_bytes() == before and keys.stat().st_mode & 0o777 == mode


def test_a_key_store_owned_by_another_user_or_in_an_open_folder_is_refused(tmp_path: Path) -> None:
    _with_a_lease(tmp_path)
    keys = _paths(tmp_path)[1]
    keys.parent.chmod(0o777)
    with pytest.raises(KeyStoreExposed, match="writable by no one else"):
        open_vault(tmp_path)
    keys.parent.chmod(0o700)
    if os.geteuid() != 0:
        return  # only root can give a file away; as a user the mode checks above bind
    nobody = pwd.getpwnam("nobody")
    os.chown(keys, nobody.pw_uid, nobody.pw_gid)
    with pytest.raises(KeyStoreExposed, match=f"owned by uid {nobody.pw_uid}"):
        open_vault(tmp_path)
    os.chown(keys, 0, 0)
    with open_vault(tmp_path) as vault:
        assert vault.counts()["ACTIVE"] == 1


def test_a_symlinked_or_empty_key_store_is_refused(tmp_path: Path) -> None:
    _with_a_lease(tmp_path)
    keys = _paths(tmp_path)[1]
    real = keys.with_name("real.keys")
    keys.rename(real)
    keys.symlink_to(real)
    with pytest.raises(KeyStoreError, match="symlink"):
        open_vault(tmp_path)
    keys.unlink()
    keys.write_bytes(b"")
    keys.chmod(0o600)
    with pytest.raises(VaultIntegrityError, match="0 bytes"):
        open_vault(tmp_path)
    assert keys.read_bytes() == b""


def test_a_zero_byte_vault_is_refused_before_any_key_is_made(tmp_path: Path) -> None:
    vault_path, keys = _paths(tmp_path)
    vault_path.parent.mkdir()
    vault_path.write_bytes(b"")
    with pytest.raises(VaultIntegrityError, match="empty file \\(0 bytes\\), not a database"):
        open_vault(tmp_path)
    assert vault_path.read_bytes() == b"" and not keys.exists()


def test_new_files_appear_whole(tmp_path: Path) -> None:
    with open_vault(tmp_path):
        pass
    for path in _paths(tmp_path):
        assert path.read_bytes().startswith(b"SQLite format 3\x00") and path.stat().st_mode & 0o077 == 0
        assert not [p for p in path.parent.iterdir() if ".creating-" in p.name]


def test_a_rehydration_refused_for_hardening_revokes_the_lease(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        grant = new_lease(vault)
        returned = model_return(*tokens_of(grant))
        claim = claim_for(returned)
        vault.claim(grant.lease_id, claim)
        vault.hardening = FAILED  # e.g. a process that could not lock memory picks up the claimed lease
        with pytest.raises(ClaimConflict):
            rehydrate(vault, grant.lease_id, claim_for(returned, principal="other"), returned, SCHEMA)
        assert vault.get(grant.lease_id).state is LeaseState.CLAIMED  # another claim changes nothing
        with pytest.raises(ReversibleCutsDisabled, match="was revoked and its key destroyed"):
            rehydrate(vault, grant.lease_id, claim, returned, SCHEMA)
        view = vault.get(grant.lease_id)
        assert view.state is LeaseState.REVOKED and not view.key_present


def test_a_claim_in_an_unhardened_process_leaves_the_lease_active(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        grant = new_lease(vault)
        vault.hardening = FAILED
        with pytest.raises(ReversibleCutsDisabled):
            vault.claim(grant.lease_id, claim_for(model_return(*tokens_of(grant))))
        assert vault.get(grant.lease_id).state is LeaseState.ACTIVE


def _copy(vault: Vault, to: Path) -> None:
    to.unlink(missing_ok=True)
    with connected(vault.path) as live, connected(to) as copy:
        live.backup(copy)


def test_a_vault_copy_from_before_the_claim_cannot_be_claimed_by_another(tmp_path: Path) -> None:
    vault_path, keys = _paths(tmp_path)
    backup = tmp_path / "backup.sqlite3"
    with open_vault(tmp_path) as vault:
        grant = new_lease(vault)
        returned = model_return(*tokens_of(grant))
        _copy(vault, backup)
        vault.claim(grant.lease_id, claim_for(returned))
    shutil.copyfile(backup, vault_path)  # restore the copy taken before the claim
    for leftover in ("-wal", "-shm"):
        Path(f"{vault_path}{leftover}").unlink(missing_ok=True)
    with open_vault(tmp_path) as restored:
        assert restored.get(grant.lease_id).state is LeaseState.ACTIVE
        with pytest.raises(ClaimConflict, match="restored from before that claim"):
            restored.claim(grant.lease_id, claim_for(returned, principal="intruder"))
        assert restored.get(grant.lease_id).state is LeaseState.ACTIVE
        restored.claim(grant.lease_id, claim_for(returned))  # the first claimant still may
        result = rehydrate(restored, grant.lease_id, claim_for(returned), returned, SCHEMA)
        assert result.receipt.lease_id == grant.lease_id
    with connected(keys) as conn:
        assert conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0  # gone with the secret


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["claim", "restore", "snapshot"]), st.integers(0, 2)), max_size=8))
@example([("snapshot", 0), ("claim", 0), ("restore", 0), ("claim", 1)])
def test_whatever_is_restored_at_most_one_principal_ever_claims(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int]]
) -> None:
    tmp = tmp_path_factory.mktemp("vault")
    vault = open_vault(tmp, Clock())
    snapshots: list[Path] = []
    winners: set[str] = set()
    try:
        grant = new_lease(vault)
        returned = model_return(*tokens_of(grant))
        for action, who in steps:
            if action == "snapshot":
                snapshots.append(tmp / f"copy-{len(snapshots)}.sqlite3")
                _copy(vault, snapshots[-1])
            elif action == "restore" and snapshots:
                vault.close()
                shutil.copyfile(snapshots[who % len(snapshots)], vault.path)
                for leftover in ("-wal", "-shm"):
                    Path(f"{vault.path}{leftover}").unlink(missing_ok=True)
                vault = open_vault(tmp, Clock())
            elif action == "claim":
                try:
                    vault.claim(grant.lease_id, claim_for(returned, principal=f"agent-{who}"))
                except ClaimConflict:
                    continue
                winners.add(f"agent-{who}")
        assert len(winners) <= 1, winners
    finally:
        vault.close()
