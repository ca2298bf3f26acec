"""The optional ``mlockall`` of the hardening profile, proven in fresh processes (never in the test
process itself): every resident page locked, later pages too, and fail closed where it is unsafe."""

from __future__ import annotations

import ctypes
import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

from lychd_core.config import PluginPin, default_config, dump_config

ROOT = Path(__file__).resolve().parents[1]
PR_CAPBSET_DROP, CAP_IPC_LOCK = 24, 14

CHILD = r"""
import json, sys
from pathlib import Path
from lychd_core.privacy.vault import ReversibleCutsDisabled, harden_process
from tests.support.vaults import new_lease, open_vault

def status():
    found = {}
    for line in open("/proc/self/status"):
        key, _, value = line.partition(":")
        if value.split():
            found[key] = value.split()[0]
    return found

report = harden_process(lock_all_memory=True)
now = status()  # one read: both figures from the same instant
out = {"report": report.to_json(), "locked": int(now["VmLck"]), "resident": int(now["VmRSS"])}
with open_vault(Path(sys.argv[1])) as vault:
    try:
        out["lease"] = new_lease(vault).lease_id
    except ReversibleCutsDisabled as exc:
        out["refused"] = str(exc)
before = int(status()["VmLck"])  # after the vault closed: what it freed is not counted against growth
grown = bytearray(16 * 1024 * 1024)  # MCL_FUTURE: pages made after the call are locked as well
out["grown_locked"] = int(status()["VmLck"]) - before
print(json.dumps(out))
"""


def _drop_ipc_lock(memlock: int) -> None:
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (memlock, memlock))
    ctypes.CDLL(None).prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0)


def _run(argv: list[str], *, memlock: int | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: generous on a loaded machine
        preexec_fn=None if memlock is None else (lambda: _drop_ipc_lock(memlock)),
        check=False,
    )


def _child(tmp: Path, *, memlock: int | None) -> dict[str, Any]:
    done = _run([sys.executable, "-c", CHILD, str(tmp)], memlock=memlock)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def _check(report: dict[str, Any]) -> dict[str, Any]:
    return next(check for check in report["checks"] if check["name"] == "lock_all_memory")


def test_lock_all_memory_locks_every_resident_page_and_later_ones(tmp_path: Path) -> None:
    out = _child(tmp_path, memlock=None)
    assert _check(out["report"])["ok"] and out["report"]["reversible_allowed"], out["report"]
    assert out["locked"] + 64 >= out["resident"] > 10_000  # the whole interpreter, not one buffer
    assert out["grown_locked"] >= 16 * 1024 and out["lease"].startswith("lease_")


def test_lock_all_memory_fails_closed_without_cap_ipc_lock_under_a_finite_limit(tmp_path: Path) -> None:
    out = _child(tmp_path, memlock=1 << 20)  # enough for the plaintext buffers, not for the process
    check = _check(out["report"])
    assert not check["ok"] and "CAP_IPC_LOCK" in check["detail"] and "not attempted" in check["detail"]
    assert not out["report"]["reversible_allowed"] and "lease" not in out
    assert "reversible cuts are disabled" in out["refused"] and "lock_all_memory" in out["refused"]
    locked_buffers = next(c for c in out["report"]["checks"] if c["name"] == "locked_buffers")
    assert locked_buffers["ok"]  # only the mlockall check failed, and it alone disabled reversible cuts
    assert out["locked"] == 0  # nothing was locked process-wide


def test_the_profile_option_reaches_lychd_vault_status(tmp_path: Path) -> None:
    pin = PluginPin(name="closed-diagnostic-reversible", revision=1, options={"lock_all_memory": True})
    (tmp_path / "lychd.toml").write_text(dump_config(default_config().model_copy(update={"privacy_profile": pin})))
    argv = [sys.executable, "-m", "lychd_core.cli", "vault", "status", "--workspace", str(tmp_path)]
    argv += ["--config", str(tmp_path / "lychd.toml"), "--json"]
    allowed = _run(argv, memlock=None)
    assert allowed.returncode == 0, allowed.stderr
    assert _check(json.loads(allowed.stdout)["hardening"])["ok"]
    refused = _run(argv, memlock=1 << 20)
    assert refused.returncode == 0, refused.stderr  # status reports; it refuses nothing
    report = json.loads(refused.stdout)["hardening"]
    assert not _check(report)["ok"] and not report["reversible_allowed"]
