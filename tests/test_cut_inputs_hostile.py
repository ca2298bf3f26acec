"""Every file `lychd cut` and `lychd vault rehydrate` read goes through the strict input layer
(issue 27, findings 2 and 3): deep JSON or TOML, a 5,000-digit integer, a lone surrogate, a
FIFO, `/dev/zero`, an output into a missing folder or onto a directory are each a typed
refusal (exit 1, no traceback, never a hang), and REPORT is resolved inside `--workspace`."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from lychd_core.cli import main
from tests.support.cuts import FIXTURES, NOW, OWNER
from tests.support.reversible import SCHEMA
from tests.support.sensitive import captured

REPORT = "tests/fixtures/privacy/pip-audit.json"
PROFILE = str(Path(__file__).resolve().parents[1] / "profiles" / "default.toml")  # labels the fixture report
DEEP = 100_000
HOSTILE_JSON = {
    "deep": "[" * DEEP + "]" * DEEP,
    "huge-int": '{"dependencies": [], "n": ' + "7" * 5000 + "}",
    "lone-surrogate": '{"dependencies": [{"name": "\\udcff", "version": "1", "vulns": []}]}',
}
HOSTILE_TOML = {
    "deep": "a = " + "[" * DEEP + "]" * DEEP + "\n",
    "huge-int": "a = " + "7" * 5000 + "\n",
    "lone-surrogate": 'a = "\\ud800"\n',
}
SPECIAL = ("fifo", "/dev/zero", "directory")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run in a thread so a reader that blocks (on a FIFO) fails the test instead of hanging it."""
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(main(list(args))), daemon=True)
    worker.start()
    worker.join(120)
    assert result, f"lychd {' '.join(args[:2])} did not return: a reader blocked"
    out, err = capsys.readouterr()
    captured(out, err)
    return result[0], out, err


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace holding the example report where the default [[labels]] rules label it."""
    report = tmp_path / REPORT
    report.parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "pip-audit.json", report)
    (tmp_path / "schema.json").write_text(SCHEMA.model_dump_json())
    (tmp_path / "return.json").write_text(json.dumps({"owner": "x"}))
    return tmp_path


def prepare_args(ws: Path, **override: str) -> list[str]:
    files = {"report": REPORT, "--plan": str(FIXTURES / "plan.toml"), "--vocabulary": str(FIXTURES / "vocabulary.toml")}
    files |= override
    return ["cut", "prepare", files.pop("report"), "--workspace", str(ws), "--owner", OWNER, "--now", str(NOW),
            "--config", PROFILE,
            *[part for flag, value in files.items() for part in (flag, value)]]  # fmt: skip


def special(ws: Path, kind: str) -> str:
    if kind == "fifo":
        path = ws / "fifo"
        os.mkfifo(path)
        return str(path)
    if kind == "directory":
        return str(ws)
    return kind


def assert_typed(code: int, err: str, what: str) -> None:
    assert code == 1, (what, err)
    assert "Traceback" not in err and "internal error" not in err, (what, err)


@pytest.mark.parametrize("case", sorted(HOSTILE_TOML))
@pytest.mark.parametrize("flag", ["--plan", "--vocabulary"])
def test_hostile_toml_plan_and_vocabulary(flag: str, case: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (ws / "bad.toml").write_text(HOSTILE_TOML[case])
    code, _, err = run(capsys, *prepare_args(ws, **{flag: str(ws / "bad.toml")}))
    assert_typed(code, err, (flag, case))
    assert ("PlanError" if flag == "--plan" else "VocabularyError") in err


@pytest.mark.parametrize("kind", SPECIAL)
@pytest.mark.parametrize("flag", ["--plan", "--vocabulary"])
def test_special_files_as_plan_and_vocabulary(
    flag: str, kind: str, ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, *prepare_args(ws, **{flag: special(ws, kind)}))
    assert_typed(code, err, (flag, kind))


@pytest.mark.parametrize("case", sorted(HOSTILE_JSON))
def test_a_hostile_json_report(case: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (ws / REPORT).write_text(HOSTILE_JSON[case])
    code, _, err = run(capsys, *prepare_args(ws))
    assert_typed(code, err, case)
    assert "ReportError" in err


@pytest.mark.parametrize("kind", ["fifo", "directory", "dev-zero-link"])
def test_a_special_report_inside_the_workspace(kind: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = ws / "tests/fixtures/privacy/odd"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "directory":
        target.mkdir()
    else:
        target.symlink_to("/dev/zero")
    code, _, err = run(capsys, *prepare_args(ws, report="tests/fixtures/privacy/odd"))
    assert_typed(code, err, kind)


def test_a_report_symlinked_outside_the_workspace_is_refused(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outside = ws.parent / f"{ws.name}-outside.json"
    shutil.copy(FIXTURES / "pip-audit.json", outside)
    (ws / "tests/fixtures/privacy/linked.json").symlink_to(outside)
    code, _, err = run(capsys, *prepare_args(ws, report="tests/fixtures/privacy/linked.json"))
    assert_typed(code, err, "symlink")
    assert "outside the workspace" in err
    code, _, err = run(capsys, *prepare_args(ws, report=str(outside)))
    assert_typed(code, err, "absolute outside")


def test_report_resolves_against_the_workspace_not_the_current_directory(
    ws: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "tests/fixtures/privacy").mkdir(parents=True)
    (elsewhere / REPORT).write_text("{not the report")  # what the current directory would have given
    monkeypatch.chdir(elsewhere)
    code, out, err = run(capsys, *prepare_args(ws), "--json")
    assert code == 0, err
    assert json.loads(out)["verification"]["verdict"] == "pass"


@pytest.mark.parametrize("case", [*sorted(HOSTILE_JSON), *SPECIAL])
def test_hostile_chain_files(case: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if case in HOSTILE_JSON:
        (ws / "chain.json").write_text(HOSTILE_JSON[case])
        chain = str(ws / "chain.json")
    else:
        chain = special(ws, case)
    args = ["cut", "verify", REPORT, "--workspace", str(ws), "--chain", chain, "--owner", OWNER, "--now", str(NOW),
            "--config", PROFILE,
            "--vocabulary", str(FIXTURES / "vocabulary.toml")]  # fmt: skip
    code, _, err = run(capsys, *args)
    assert_typed(code, err, case)
    assert "CutInputError" in err


@pytest.mark.parametrize("where", ["missing-folder", "directory", "fifo"])
def test_out_must_name_a_writable_file(where: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = {"missing-folder": str(ws / "no" / "such" / "chain.json"), "directory": str(ws), "fifo": special(ws, "fifo")}
    before = sorted(p.name for p in ws.iterdir())
    code, _, err = run(capsys, *prepare_args(ws), "--out", out[where])
    assert_typed(code, err, where)
    assert "CutInputError" in err and "--out" in err
    assert sorted(p.name for p in ws.iterdir()) == before, "nothing half-written is left beside it"


@pytest.mark.parametrize("case", [*sorted(HOSTILE_JSON), *SPECIAL])
@pytest.mark.parametrize("flag", ["--return", "--schema"])
def test_hostile_vault_return_and_schema(flag: str, case: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if case in HOSTILE_JSON:
        (ws / "bad.json").write_text(HOSTILE_JSON[case])
        given = str(ws / "bad.json")
    else:
        given = special(ws, case)
    files = {"--return": str(ws / "return.json"), "--schema": str(ws / "schema.json"), flag: given}
    args = ["vault", "rehydrate", "lease_abcdefgh", "--workspace", str(ws), "--principal", "p", "--run", "r",
            "--attempt", "1", "--station", "s", *[part for item in files.items() for part in item]]  # fmt: skip
    code, _, err = run(capsys, *args)
    assert_typed(code, err, (flag, case))
    assert "VaultInputError" in err


def test_text_format_has_the_byte_and_record_bounds(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = ws / "tests/fixtures/privacy/records.txt"
    text.write_text("closed-diagnostic@1\n" + "x\n" * 1_000_001)
    code, _, err = run(capsys, *prepare_args(ws, report="tests/fixtures/privacy/records.txt"), "--format", "text")
    assert_typed(code, err, "records")
    assert "more than 1000000 records" in err
    with text.open("r+b") as handle:
        handle.truncate(64 * 1024 * 1024 + 1)  # sparse: nothing is written, the size is over the bound
    code, _, err = run(capsys, *prepare_args(ws, report="tests/fixtures/privacy/records.txt"), "--format", "text")
    assert_typed(code, err, "bytes")
    assert "over the bound" in err
