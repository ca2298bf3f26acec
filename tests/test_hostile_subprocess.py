"""The hostile cases that could hang or take the process down, each in a killed-on-timeout subprocess.

Special files as inputs (``/dev/zero``, a FIFO with no writer), a 46 MB continuation,
argument bytes that are not UTF-8, a closed or full standard output, and third-party
plugin distributions (real entry points, installed as ``.dist-info`` folders on
``PYTHONPATH``) that exit, raise, hang or collide with a first-party entry point name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.hostile import (
    CPU_LIMIT_SECONDS,
    HANG_SECONDS,
    distribution,
    example_records,
    run_batch,
    run_subprocess,
    workspace,
    write,
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = workspace(tmp_path / "ws")
    write(root / "records.json", json.dumps(example_records()))
    return root


def input_commands(ws: Path, file: str) -> list[list[str]]:
    w = ["--workspace", str(ws)]
    return [
        ["config", "validate", file],
        ["select", file, "--window", "10000"],
        ["assemble", *w, "--query", "q", "--history", file],
        ["assemble", *w, "--query", "q", "--continuation", file],
        ["assemble", *w, "--query-file", file],
        ["assemble", *w, "--config", file, "--query", "q"],
        ["memory", "add", file, *w],
        ["project", *w, "--config", file, "src/app.py"],
    ]


def test_special_files_as_inputs_are_refused_without_reading(ws: Path) -> None:
    os.mkfifo(ws / "pipe")  # nobody ever writes: a blocking open or read would hang
    cases = [argv for file in ("/dev/zero", str(ws / "pipe"), str(ws / "src")) for argv in input_commands(ws, file)]
    for argv, outcome in zip(cases, run_batch(cases), strict=True):
        assert outcome.code == 1 and "regular file" in outcome.err, (argv, outcome.err)


def test_dev_zero_on_standard_input_is_bounded(ws: Path) -> None:
    with open("/dev/zero", "rb") as zero:
        outcome = run_subprocess(["assemble", "--workspace", str(ws), "--query-file", "-"], stdin=zero)
    assert outcome.code == 1 and "at most" in outcome.err


def test_a_46_mb_continuation_is_a_budget_refusal(ws: Path) -> None:
    call = {"part_kind": "tool-call", "tool_name": "t", "args": {}, "tool_call_id": "c1"}
    part = {"part_kind": "tool-return", "tool_name": "t", "content": "x" * 46_000_000, "tool_call_id": "c1"}
    messages = [{"kind": "response", "parts": [call]}, {"kind": "request", "parts": [part]}]
    file = write(ws / "continuation.json", json.dumps(messages))
    outcome = run_subprocess(["assemble", "--workspace", str(ws), "--query", "q", "--continuation", file])
    assert outcome.code == 1 and "ContextBudgetExceededError" in outcome.err, outcome.err
    assert outcome.cpu_seconds < CPU_LIMIT_SECONDS / 2, "bounded, never reading the whole file into a model"


def test_argument_bytes_that_are_not_utf8_are_usage_errors(ws: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "lychd_core.cli", "assemble", "--workspace", os.fsencode(ws), "--query", b"\xff\xfe"],
        capture_output=True,
        timeout=HANG_SECONDS,
        check=False,
    )
    assert result.returncode == 2 and b"not valid UTF-8" in result.stderr and b"Traceback" not in result.stderr


@pytest.mark.parametrize("command", [["plugins", "--json"], ["config", "schema"]])
def test_a_closed_or_full_stdout(command: list[str], ws: Path) -> None:
    closed = run_subprocess(command, shell_suffix=">&-")
    assert closed.code == 0, closed.err  # nothing to write to: the output is discarded, not a crash
    with open("/dev/full", "w") as full:
        outcome = run_subprocess(command, stdout=full)
    assert outcome.code == 1 and "cannot write the output" in outcome.err


def test_a_closed_stdout_never_lands_in_a_store(ws: Path) -> None:
    records = str(ws / "records.json")
    outcome = run_subprocess(["memory", "add", records, "--workspace", str(ws), "--json"], shell_suffix=">&-")
    assert outcome.code == 0, outcome.err
    stats = run_subprocess(["memory", "stats", "--workspace", str(ws), "--json"])
    assert stats.code == 0 and json.loads(stats.out)


def test_importing_the_main_module_does_not_run_the_command() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import lychd_core.cli.__main__"], capture_output=True, text=True, timeout=HANG_SECONDS
    )
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""


# --- third-party plugin distributions with real entry points --------------------------------


ROLE_POLICY_SOURCE = """
import sys
from pydantic import BaseModel, ConfigDict
from lychd_core.hookspecs import hookimpl
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import ContextClass, Provenance


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Policy:
    name = "acme.roles"
    revision = 1
    options_model = Options
    roles = ("writer", "raise", "exit", "interrupt", "wrong", "hang")

    def profile(self, role, options):
        if role == "raise":
            raise RuntimeError("policy broke")
        if role == "exit":
            sys.exit(0)
        if role == "interrupt":
            raise KeyboardInterrupt
        if role == "wrong":
            return "not a profile"
        if role == "hang":
            while True:
                pass
        return RoleProfile(role, frozenset(ContextClass), frozenset(Provenance), ())


@hookimpl
def lychd_register_role_policies(register):
    register(Policy())
"""

POLICY_CONFIG = 'schema_version = 1\n[role_policy]\nname = "acme.roles"\nrevision = 1\n'


def run_with(site: Path, args: list[str], **env: str) -> tuple[int, str]:
    outcome = run_subprocess(args, env={"PYTHONPATH": str(site), **env})
    return outcome.code, outcome.err


@pytest.mark.parametrize("statement", ["import sys; sys.exit(0)", "raise KeyboardInterrupt"])
def test_a_plugin_that_exits_while_loading_is_a_typed_error(statement: str, tmp_path: Path) -> None:
    distribution(tmp_path / "site", "acme-exit", "acme-exit", "acme_exit", statement + "\n")
    code, err = run_with(tmp_path / "site", ["plugins", "--json"])
    assert code == 1 and "PluginLoadError" in err and "acme-exit" in err


@pytest.mark.parametrize("body", ["while True:\n    pass", "import time\ntime.sleep(3600)"])
def test_a_plugin_whose_import_hangs_is_stopped_at_the_limit(body: str, tmp_path: Path) -> None:
    distribution(tmp_path / "site", "acme-slow", "acme-slow", "acme_slow", body + "\n")
    default = str(Path(__file__).parents[1] / "profiles" / "default.toml")
    cases = [["plugins", "--json"], ["config", "validate", default]]
    outcomes = run_batch(cases, env={"PYTHONPATH": str(tmp_path / "site"), "LYCHD_PLUGIN_CALL_SECONDS": "1"})
    for outcome in outcomes:
        assert outcome.code == 1 and "PluginTimeoutError" in outcome.err, outcome.err
        assert "importing plugin 'acme-slow' (acme_slow)" in outcome.err and "acme-slow 1.0" in outcome.err
        assert "did not finish within 1 s" in outcome.err


def test_an_entry_point_named_like_a_first_party_one_is_a_duplicate(tmp_path: Path) -> None:
    distribution(tmp_path / "site", "acme-roles", "roles", "acme_roles", "")
    default = str(Path(__file__).parents[1] / "profiles" / "default.toml")
    outcomes = run_batch([["plugins"], ["config", "validate", default]], env={"PYTHONPATH": str(tmp_path / "site")})
    for outcome in outcomes:
        assert outcome.code == 1 and "DuplicatePluginError" in outcome.err, outcome.err
        assert "acme-roles" in outcome.err and "lychd-roles" in outcome.err


def test_role_policy_failures_are_typed_and_bounded(tmp_path: Path, ws: Path) -> None:
    site = tmp_path / "site"
    distribution(site, "acme-policy", "acme-policy", "acme_policy", ROLE_POLICY_SOURCE)
    config = write(ws / "lychd.toml", POLICY_CONFIG)
    w = ["--workspace", str(ws), "--config", config]
    expected = {
        "writer": "",
        "raise": "RuntimeError: policy broke",
        "exit": "SystemExit",
        "interrupt": "KeyboardInterrupt",
        "wrong": "not a RoleProfile",
        "hang": "did not finish within 2 s",
    }
    cases: list[list[str]] = [["memory", "add", str(ws / "records.json"), *w]]
    for role in expected:
        cases += [["assemble", *w, "--query", "q", "--role", role], ["memory", "query", *w, "--role", role]]
    outcomes = run_batch(cases, env={"PYTHONPATH": str(site), "LYCHD_PLUGIN_CALL_SECONDS": "2"})
    assert outcomes[0].code == 0, outcomes[0].err
    for case, outcome in zip(cases[1:], outcomes[1:], strict=True):
        role = case[-1]
        if role == "writer":
            assert outcome.code == 0, outcome.err
        else:
            assert outcome.code == 1 and expected[role] in outcome.err and "acme-policy" in outcome.err, (case, outcome)
