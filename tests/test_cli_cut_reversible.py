"""`lychd cut prepare` with the reversible profile pinned, then `lychd vault rehydrate`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lychd_core.cli import main
from lychd_core.config import PluginPin, dump_config, load_config
from tests.support.cuts import FIXTURES, NOW, OWNER
from tests.support.reversible import SCHEMA, SLOT_TOKEN
from tests.support.sensitive import SENSITIVE, captured

REPORT = "tests/fixtures/privacy/pip-audit.json"
LEASE = ("--schema", "{schema}", "--run", "run-1", "--attempt", "1", "--station", "station-a")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    captured(out, err)
    return code, out, err


@pytest.fixture
def workspace(tmp_path: Path) -> dict[str, str]:
    """A workspace holding the example report, a config pinning the reversible profile, a plan and a schema."""
    report = tmp_path / REPORT
    report.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "pip-audit.json", report)
    config = load_config(Path(__file__).resolve().parents[1] / "profiles" / "default.toml").model_copy(
        update={"privacy_profile": PluginPin(name="closed-diagnostic-reversible", revision=1)}
    )
    (tmp_path / "lychd.toml").write_text(dump_config(config))
    plan = (FIXTURES / "plan.toml").read_text().replace('"versions"]', '"versions", "owner-identity"]')
    (tmp_path / "plan.toml").write_text(plan + 'reversible_categories = ["owner"]\n')
    (tmp_path / "schema.json").write_text(SCHEMA.model_dump_json())
    files = {"config": str(tmp_path / "lychd.toml"), "schema": str(tmp_path / "schema.json")}
    return {"root": str(tmp_path), "report": str(report)} | files


def prepare(capsys: pytest.CaptureFixture[str], ws: dict[str, str], *extra: str) -> tuple[int, str, str]:
    lease = [arg.format(schema=ws["schema"]) for arg in LEASE]
    return run(
        capsys, "cut", "prepare", ws["report"], "--workspace", ws["root"], "--config", ws["config"],
        "--plan", str(Path(ws["root"]) / "plan.toml"), "--vocabulary", str(FIXTURES / "vocabulary.toml"),
        "--owner", OWNER, "--now", str(NOW), *lease, *extra,
    )  # fmt: skip


def test_reversible_prepare_then_vault_rehydrate(capsys: pytest.CaptureFixture[str], workspace: dict[str, str]) -> None:
    chain = Path(workspace["root"]) / "chain.json"
    code, out, err = prepare(capsys, workspace, "--json", "--out", str(chain), "--deadline", str(NOW + 600))
    assert code == 0, err
    data = json.loads(out)
    lease_id = data["lease"]["lease_id"]
    assert lease_id.startswith("lease_") and data["lease"]["expires_at"] == NOW + 600 + 300
    assert data["verification"]["reversal"]["lease_id"] == lease_id
    text = data["candidate"]["items"][0]["text"]
    token = SLOT_TOKEN.findall(text)[0]
    assert not any(value in out + err for value in SENSITIVE)
    assert all(token not in json.dumps(receipt) for receipt in data["receipts"])
    stored = json.loads(chain.read_text())
    assert stored["lease"]["lease_id"] == lease_id and "map" not in json.dumps(stored["lease"])
    verify = ("cut", "verify", workspace["report"], "--workspace", workspace["root"], "--config", workspace["config"],
              "--chain", str(chain), "--vocabulary", str(FIXTURES / "vocabulary.toml"), "--owner", OWNER,
              "--now", str(NOW))  # fmt: skip
    assert run(capsys, *verify)[0] == 0
    moved = stored | {"lease": stored["lease"] | {"expires_at": stored["lease"]["expires_at"] + 1}}
    chain.write_text(json.dumps(moved, indent=2, sort_keys=True) + "\n")
    code, _, err = run(capsys, *verify)
    assert code == 1 and "verdict-failed" in err and "expiry" in err, "the vault attests the lease's expiry"
    altered = token[:-3] + ("1" if token[-3] == "0" else "0") + ">>"  # the tag's last digit, always changed
    stored["candidate"]["items"][0]["text"] = text.replace(token, altered, 1)
    chain.write_text(json.dumps(stored))
    code, _, err = run(capsys, *verify)
    assert code == 1 and "reconstruction-mismatch" in err and "Traceback" not in err

    returned = Path(workspace["root"]) / "return.json"
    returned.write_text(json.dumps({"owner": token, "summary": "upgrade jinja2", "findings": []}))
    claim = ["--principal", "agent-1", "--run", "run-1", "--attempt", "1", "--station", "station-a"]
    rehydrate = ["vault", "rehydrate", lease_id, "--return", str(returned), "--schema", workspace["schema"], *claim]
    code, out, err = main([*rehydrate, "--workspace", workspace["root"], "--json"]), *capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)  # the restored value is the station-local view: not handed to the capture scan
    assert result["value"]["owner"] == OWNER and result["local_only"] and not result["executable"]
    assert "local-only" in result["label"]["handling_constraints"]
    assert OWNER not in json.dumps(result["receipt"]) and token not in json.dumps(result["receipt"])
    code, _, err = run(capsys, *rehydrate, "--workspace", workspace["root"])
    assert code == 1 and "replayed" in err and "Traceback" not in err


def test_reversible_prepare_refuses_without_lease_inputs_or_durability(
    capsys: pytest.CaptureFixture[str], workspace: dict[str, str]
) -> None:
    code, _, err = run(
        capsys, "cut", "prepare", workspace["report"], "--workspace", workspace["root"],
        "--config", workspace["config"],
        "--plan", str(Path(workspace["root"]) / "plan.toml"), "--vocabulary", str(FIXTURES / "vocabulary.toml"),
        "--owner", OWNER, "--now", str(NOW),
    )  # fmt: skip
    assert code == 1 and "--schema, --run, --attempt, --station" in err and "Traceback" not in err
    code, _, err = prepare(capsys, workspace, "--deadline", str(4102444800 + 1))
    assert code == 1 and "DurabilityRefused" in err and "irreversible cut" in err
    code, out, _ = run(capsys, "vault", "status", "--workspace", workspace["root"], "--json")
    assert code == 0 and sum(json.loads(out)["leases"].values()) == 0  # a refused preparation leased nothing
