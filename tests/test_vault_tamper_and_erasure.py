"""Nothing read back is trusted, and erasure leaves old backups undecryptable."""

from __future__ import annotations

from pathlib import Path

import pytest

from lychd_core.errors import LeaseUnrecoverable, VaultIntegrityError
from lychd_core.privacy.vault import LeaseState, Vault, rehydrate
from lychd_core.privacy.vault.rows import LeaseRow, load_row, mac_key
from tests.support.sqlite_files import connected
from tests.support.vaults import SCHEMA, claim_for, model_return, new_lease, open_vault, tokens_of


def _claimed(vault: Vault) -> tuple[str, object, object]:
    grant = new_lease(vault)
    returned = model_return(*tokens_of(grant))
    claim = claim_for(returned)
    vault.claim(grant.lease_id, claim)
    return grant.lease_id, claim, returned


def _sql(vault: Vault, statement: str, *args: object) -> None:
    with connected(vault.path) as conn:
        conn.execute(statement, args)


def _blob(vault: Vault, column: str, lease_id: str) -> bytes:
    with connected(vault.path) as conn:
        return bytes(conn.execute(f"SELECT {column} FROM leases WHERE lease_id = ?", (lease_id,)).fetchone()[0])


@pytest.mark.parametrize(
    "tamper",
    [
        "swap wrapped DEKs",
        "flip a ciphertext byte",
        "truncate the ciphertext",
        "truncate the body",
        "revive the state",
        "drop the MAC",
    ],
)
def test_a_row_edited_outside_the_vault_is_refused_and_not_served(tmp_path: Path, tamper: str) -> None:
    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(vault)
        other, _, _ = _claimed(vault)
        cipher = _blob(vault, "map_ciphertext", lease_id)
        edits = {
            "swap wrapped DEKs": (
                "UPDATE leases SET wrapped_dek = ? WHERE lease_id = ?",
                _blob(vault, "wrapped_dek", other),
            ),
            "flip a ciphertext byte": (
                "UPDATE leases SET map_ciphertext = ? WHERE lease_id = ?",
                cipher[:5] + bytes([cipher[5] ^ 1]) + cipher[6:],
            ),
            "truncate the ciphertext": ("UPDATE leases SET map_ciphertext = ? WHERE lease_id = ?", cipher[:10]),
            "truncate the body": ("UPDATE leases SET body = substr(body, 1, 40) || ? WHERE lease_id = ?", ""),
            "revive the state": ("UPDATE leases SET state = 'ACTIVE', claim = ? WHERE lease_id = ?", None),
            "drop the MAC": ("UPDATE leases SET mac = ? WHERE lease_id = ?", b""),
        }
        statement, value = edits[tamper]
        _sql(vault, statement, value, lease_id)
        with pytest.raises(VaultIntegrityError):
            rehydrate(vault, lease_id, claim, returned, SCHEMA)
        with pytest.raises(VaultIntegrityError):
            vault.get(lease_id)


@pytest.mark.parametrize("tamper", ["swap wrapped DEKs", "flip a ciphertext byte", "truncate the ciphertext"])
def test_aead_binding_holds_even_when_the_row_mac_is_forged(tmp_path: Path, tamper: str) -> None:
    """An attacker who could also re-MAC rows still cannot move a wrapped DEK or alter the map."""
    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(vault)
        other, _, _ = _claimed(vault)
        with connected(vault.path, isolation_level=None) as conn:
            row = load_row(conn, lease_id, vault.keys.kek)
            donor = load_row(conn, other, vault.keys.kek)
            cipher = row.map_ciphertext or b""
            forged = {
                "swap wrapped DEKs": (donor.wrap_nonce, donor.wrapped_dek, cipher),
                "flip a ciphertext byte": (row.wrap_nonce, row.wrapped_dek, cipher[:-1] + bytes([cipher[-1] ^ 1])),
                "truncate the ciphertext": (row.wrap_nonce, row.wrapped_dek, cipher[: len(cipher) // 2]),
            }[tamper]
            edited = LeaseRow(
                row.lease, row.state, row.claim, row.changed_at, forged[0], forged[1], row.map_nonce, forged[2]
            )
            edited.replace(conn, mac_key(vault.keys.kek(1)), row.state)
        with pytest.raises(VaultIntegrityError, match=r"authentication failed|malformed|shorter"):
            rehydrate(vault, lease_id, claim, returned, SCHEMA)
        assert vault.get(lease_id).state is LeaseState.CLAIMED  # nothing served, nothing half-written


def _file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_a_backup_taken_before_erasure_cannot_be_decrypted_afterwards(tmp_path: Path) -> None:
    backup = tmp_path / "backup" / "vault.sqlite3"
    backup.parent.mkdir()
    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(vault)
        wrapped = _blob(vault, "wrapped_dek", lease_id)
        cipher = _blob(vault, "map_ciphertext", lease_id)
        secret = vault.keys.secret(lease_id)
        assert secret is not None
        with connected(vault.path) as live, connected(backup) as copy:
            live.backup(copy)
        rehydrate(vault, lease_id, claim, returned, SCHEMA)
        keys_path = vault.keys.path
        assert vault.keys.secret(lease_id) is None
    for leftover in (wrapped, cipher):
        assert leftover not in _file_bytes(tmp_path / "state" / "vault.sqlite3")
    assert secret not in _file_bytes(keys_path)
    assert wrapped in backup.read_bytes()  # the old backup still holds the bytes: undecryptable, not erased

    with Vault.open(backup, keys_path) as restored:
        view = restored.get(lease_id)
        assert view.state is LeaseState.CLAIMED and not view.key_present
        with pytest.raises(LeaseUnrecoverable):
            rehydrate(restored, lease_id, claim, returned, SCHEMA)
        assert restored.get(lease_id).state is LeaseState.REVOKED


def _vault_files(vault: Vault) -> dict[str, bytes]:
    """The database and every file SQLite keeps beside it (-wal, -shm, -journal), as they are now."""
    return {p.name: p.read_bytes() for p in vault.path.parent.glob(vault.path.name + "*")}


def test_after_purge_no_wrapped_dek_or_map_bytes_remain_in_the_database_wal_or_journal(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        kept, _, _ = _claimed(vault)
        erased = []
        for _ in range(3):
            lease_id, claim, returned = _claimed(vault)
            erased.append((_blob(vault, "wrapped_dek", lease_id), _blob(vault, "map_ciphertext", lease_id)))
            rehydrate(vault, lease_id, claim, returned, SCHEMA)
            assert vault.keys.secret(lease_id) is None  # undecryptable from here on, wherever the bytes are
        settings = [
            vault._connection.execute(f"PRAGMA {name}").fetchone()[0]
            for name in ("secure_delete", "journal_size_limit")
        ]
        assert settings == [1, 0]
        vault.purge()  # the vault stays open: the files are checked as a running station leaves them
        files = _vault_files(vault)
        assert vault.path.name + "-wal" in files and len(files[vault.path.name + "-wal"]) == 0
        assert _blob(vault, "wrapped_dek", kept) in files[vault.path.name]  # the check can see a live key
        for wrapped, cipher in erased:
            assert all(wrapped not in data and cipher not in data for data in files.values())


@pytest.mark.parametrize("truncate", [False, True])
def test_truncate_wal_on_erasure_closes_the_window_before_purge(tmp_path: Path, truncate: bool) -> None:
    with open_vault(tmp_path, truncate_wal_on_erasure=truncate) as vault:
        lease_id, claim, returned = _claimed(vault)
        wrapped = _blob(vault, "wrapped_dek", lease_id)
        rehydrate(vault, lease_id, claim, returned, SCHEMA)
        files = _vault_files(vault)
        assert vault.keys.secret(lease_id) is None
        leftover = any(wrapped in data for data in files.values())
        # without the option the creating WAL frame still holds the (now undecryptable) wrapped key until purge
        assert leftover is not truncate
