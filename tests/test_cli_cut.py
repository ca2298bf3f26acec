"""`lychd cut prepare|verify` end to end: candidate, verdict and chain; typed refusals exit 1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lychd_core.cli import main
from tests.support.cuts import FIXTURES, NOW, OWNER
from tests.support.sensitive import SENSITIVE, captured

ROOT = Path(__file__).resolve().parents[1]
REPORT = "tests/fixtures/privacy/pip-audit.json"
PROFILE = str(ROOT / "profiles" / "default.toml")  # labels this repository's fixture report private
COMMON = ("--vocabulary", str(FIXTURES / "vocabulary.toml"), "--owner", OWNER, "--now", str(NOW), "--config", PROFILE)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    captured(out, err)  # handed to the capture scan: everything the command printed
    return code, out, err


def prepare(capsys: pytest.CaptureFixture[str], *extra: str, report: str = REPORT) -> tuple[int, str, str]:
    return run(
        capsys, "cut", "prepare", report, "--workspace", str(ROOT), "--plan", str(FIXTURES / "plan.toml"),
        *COMMON, *extra,
    )  # fmt: skip


def test_prepare_prints_the_candidate_verdict_and_chain_without_the_owner(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = prepare(capsys)
    assert code == 0, err
    assert "owner=<redacted>" in out and "verdict: pass" in out and "receipt 1 closed-diagnostic@1" in out
    assert "[omit description x2, omit self x1" not in out and "omit description x2" in out
    assert not any(value in out + err for value in SENSITIVE)


def test_prepare_json_and_a_stored_chain_verify(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    chain = tmp_path / "chain.json"
    code, out, _ = prepare(capsys, "--json", "--out", str(chain))
    assert code == 0
    data = json.loads(out)
    assert data["verification"]["verdict"] == "pass" and len(data["receipts"]) == 2
    assert data["cut"].keys() == {"schema", "event_id"}
    verify = ("cut", "verify", REPORT, "--workspace", str(ROOT), "--chain", str(chain), *COMMON)
    assert run(capsys, *verify)[0] == 0
    stored = json.loads(chain.read_text())
    stored["candidate"]["items"][0]["text"] = stored["candidate"]["items"][0]["text"].replace("3.1.3", "3.1.2")
    chain.write_text(json.dumps(stored))
    code, out, _ = run(capsys, *verify, "--json")
    assert code == 1 and json.loads(out)["verdict"] == "fail"
    stored = json.loads((tmp_path / "chain.json").read_text())
    chain.write_text("{not json")
    code, _, err = run(capsys, *verify)
    assert code == 1 and "CutInputError" in err and "Traceback" not in err


def test_a_dropped_receipt_fails_verification(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    chain = tmp_path / "chain.json"
    assert prepare(capsys, "--out", str(chain))[0] == 0
    stored = json.loads(chain.read_text())
    stored["receipts"] = stored["receipts"][1:]
    chain.write_text(json.dumps(stored))
    code, _, err = run(capsys, "cut", "verify", REPORT, "--workspace", str(ROOT), "--chain", str(chain), *COMMON)
    assert code == 1 and "chain-broken" in err


def test_unlabelled_reports_and_bad_inputs_are_typed_refusals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shutil.copy(FIXTURES / "pip-audit.json", tmp_path / "report.json")
    report, plan = str(tmp_path / "report.json"), str(FIXTURES / "plan.toml")
    code, _, err = run(capsys, "cut", "prepare", report, "--workspace", str(tmp_path), "--plan", plan, *COMMON)
    assert code == 1 and "unknown-lineage" in err and "Traceback" not in err
    assert prepare(capsys, "--format", "sarif")[0] == 1
    assert prepare(capsys, report="tests/fixtures/privacy/missing.json")[0] == 1
    code, _, err = prepare(capsys, "--format", "text")
    assert code == 1 and "uncovered-text" in err, "JSON is not grammar text"
    with pytest.raises(SystemExit) as usage:
        main(["cut", "prepare", REPORT])
    assert usage.value.code == 2
