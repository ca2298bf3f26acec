"""``lychd vault status|purge|rehydrate``: JSON output, exit 1 on typed refusal, exit 2 on usage."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from lychd_core.cli import main
from lychd_core.config import default_config
from lychd_core.privacy.vault import Vault
from tests.support.vaults import (
    EMAIL,
    OWNER,
    SCHEMA,
    VALUES,
    candidate,
    cut_binding,
    lease_request,
    model_return,
    tokens_of,
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def leased(tmp_path: Path) -> dict[str, Any]:
    """A workspace whose vault holds one lease (real clock), plus the return and schema files."""
    stores = default_config().stores
    now = int(time.time())
    request = lease_request(
        cut=cut_binding(cut_expires_at=now + 3600, source_expires_at=None), remote_deadline_at=now + 600
    )
    with Vault.open(stores.path_of(stores.vault, tmp_path), stores.path_of(stores.vault_keys, tmp_path)) as vault:
        grant = vault.create_lease(request, VALUES, candidate)
    returned = tmp_path / "return.json"
    returned.write_text(json.dumps(model_return(*tokens_of(grant))))
    schema = tmp_path / "schema.json"
    schema.write_text(SCHEMA.model_dump_json())
    claim = ["--principal", "agent-1", "--run", "run-1", "--attempt", "1", "--station", "station-a"]
    args = ["vault", "rehydrate", grant.lease_id, "--return", str(returned), "--schema", str(schema), *claim]
    return {"workspace": str(tmp_path), "lease_id": grant.lease_id, "rehydrate": args}


def test_status_reports_hardening_and_counts(capsys: pytest.CaptureFixture[str], leased: dict[str, Any]) -> None:
    code, out, _ = run(capsys, "vault", "status", "--workspace", leased["workspace"], "--json")
    data = json.loads(out)
    assert code == 0 and data["exists"] and data["key_epoch"] == 1
    assert data["leases"]["ACTIVE"] == 1 and data["hardening"]["reversible_allowed"]
    code, out, _ = run(capsys, "vault", "status", "--workspace", leased["workspace"])
    assert code == 0 and "reversible cuts: enabled" in out and "ACTIVE 1" in out


def test_status_of_a_workspace_without_a_vault_creates_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "vault", "status", "--workspace", str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["exists"] is False and list(tmp_path.iterdir()) == []


def test_rehydrate_restores_locally_and_a_replay_exits_1(
    capsys: pytest.CaptureFixture[str], leased: dict[str, Any]
) -> None:
    args = [*leased["rehydrate"], "--workspace", leased["workspace"]]
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["value"]["owner"] == OWNER and data["value"]["findings"][0]["contact"] == EMAIL
    assert data["local_only"] is True and data["executable"] is False
    assert data["receipt"]["schema_id"] == "RehydrationReceipt@1" and OWNER not in json.dumps(data["receipt"])
    code, out, err = run(capsys, *args)
    assert code == 1 and out == "" and "RehydrationRefused" in err and "replayed" in err and "Traceback" not in err
    code, out, _ = run(capsys, "vault", "status", "--workspace", leased["workspace"], "--json")
    assert json.loads(out)["leases"]["CONSUMED"] == 1


def test_bad_inputs_exit_1_with_a_typed_error(
    capsys: pytest.CaptureFixture[str], leased: dict[str, Any], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    args = [*leased["rehydrate"], "--workspace", leased["workspace"]]
    at = args.index("--return") + 1
    code, _, err = run(capsys, *args[:at], str(broken), *args[at + 1 :])
    assert code == 1 and "VaultInputError" in err
    at = args.index("--schema") + 1
    code, _, err = run(capsys, *args[:at], str(tmp_path / "return.json"), *args[at + 1 :])
    assert code == 1 and "VaultInputError" in err and "not a RehydrationSchema" in err
    code, _, err = run(capsys, *[a if a != "station-a" else "station-b" for a in args])
    assert code == 1 and "ClaimConflict" in err
    with pytest.raises(SystemExit) as usage:
        main(["vault", "rehydrate", "lease_x", "--return", str(broken)])
    assert usage.value.code == 2


def test_purge_expires_nothing_before_its_time(capsys: pytest.CaptureFixture[str], leased: dict[str, Any]) -> None:
    code, out, _ = run(capsys, "vault", "purge", "--workspace", leased["workspace"], "--json")
    assert code == 0 and json.loads(out) == {"expired": 0, "erased": 0, "retired_epochs": 0}
    code, out, _ = run(capsys, "vault", "purge", "--workspace", leased["workspace"])
    assert code == 0 and "expired 0 lease(s)" in out
