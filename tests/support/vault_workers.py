"""Process targets for the vault concurrency and crash tests (spawned, so importable by name)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from lychd_core.errors import ClaimConflict, VaultError
from lychd_core.privacy.vault import Vault, rehydrate
from lychd_core.privacy.vault.keystore import KeyStore
from lychd_core.privacy.vault.rows import LeaseRow
from tests.support.vaults import SCHEMA, Clock, claim_for


def open_at(tmp: Path) -> Vault:
    return Vault.open(tmp / "state" / "vault.sqlite3", tmp / "keys" / "vault.keys", clock=Clock())


def claim_race(tmp: Path, lease_id: str, who: int, returned: Any, start: Any, results: Any) -> None:
    with open_at(tmp) as vault:
        start.wait()
        try:
            vault.claim(lease_id, claim_for(returned, principal=f"agent-{who}"))
            results.put((who, "won"))
        except ClaimConflict:
            results.put((who, "conflict"))
        except VaultError as exc:
            results.put((who, type(exc).__name__))
        except Exception as exc:  # anything else (a raw sqlite3 error) is a test failure
            results.put((who, f"untyped {type(exc).__name__}: {exc}"))


def _hang(marker: Path) -> None:
    marker.write_text("inside")
    time.sleep(120)


def claim_then_hang(tmp: Path, lease_id: str, returned: Any, marker: Path) -> None:
    """Claim, but stop forever after the UPDATE and before COMMIT (the parent kills -9)."""
    original = LeaseRow.replace

    def replace(self: LeaseRow, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        _hang(marker)

    LeaseRow.replace = replace  # type: ignore[method-assign]
    with open_at(tmp) as vault:
        vault.claim(lease_id, claim_for(returned))


def consume_then_hang(tmp: Path, lease_id: str, returned: Any, marker: Path) -> None:
    """Rehydrate; stop after the CONSUMED commit, before the erasure secret is destroyed."""

    def destroy(self: KeyStore, lease_ids: list[str]) -> int:
        if lease_ids:
            _hang(marker)
        return 0

    KeyStore.destroy = destroy  # type: ignore[method-assign]
    with open_at(tmp) as vault:
        rehydrate(vault, lease_id, claim_for(returned), returned, SCHEMA)
