"""The hardening profile, proven in fresh processes, and the fail-closed path."""

from __future__ import annotations

import ctypes
import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lychd_core.privacy.vault import HardeningReport, harden_process, rehydrate, run_checks
from lychd_core.privacy.vault.buffers import LockedBuffer
from tests.support.vaults import SCHEMA, claim_for, model_return, new_lease, open_vault, tokens_of

ROOT = Path(__file__).resolve().parents[1]
PR_CAPBSET_DROP, CAP_IPC_LOCK = 24, 14

CHILD = r"""
import ctypes, json, sys
from pathlib import Path
from lychd_core.privacy.vault import ReversibleCutsDisabled
from lychd_core.privacy.vault.buffers import LockedBuffer
from tests.support.vaults import new_lease, open_vault

def status():
    fields = {}
    for line in open("/proc/self/status"):
        key, _, value = line.partition(":")
        fields[key] = value.split()[0] if value.split() else ""
    return fields

out = {"before": status()["VmLck"]}
with open_vault(Path(sys.argv[1])) as vault:
    out["report"] = vault.hardening.to_json()
    try:
        out["lease"] = new_lease(vault).lease_id
    except ReversibleCutsDisabled as exc:
        out["refused"] = str(exc)
    if vault.hardening.reversible_allowed:
        with LockedBuffer(64 * 1024):
            out["locked_kib"] = int(status()["VmLck"])
from tests.support.cuts import prepare, report_projection
out["irreversible_cut"] = prepare(report_projection()).verification.verdict  # needs no vault
out["tracer"] = status()["TracerPid"]
out["core"] = [l.split()[4:6] for l in open("/proc/self/limits") if l.startswith("Max core file size")][0]
out["dumpable"] = ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)
print(json.dumps(out))
"""


def _child(tmp: Path, *, break_mlock: bool) -> dict[str, Any]:
    def drop_mlock() -> None:
        # without CAP_IPC_LOCK (dropped from the bounding set before exec) RLIMIT_MEMLOCK 0 makes mlock fail
        resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))
        ctypes.CDLL(None).prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0)

    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: generous on a loaded machine
        preexec_fn=drop_mlock if break_mlock else None,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_a_fresh_vault_process_proves_every_check_in_proc_self_status(tmp_path: Path) -> None:
    out = _child(tmp_path, break_mlock=False)
    assert out["report"]["reversible_allowed"], out["report"]
    assert {c["name"] for c in out["report"]["checks"]} == {
        "platform",
        "core_dumps_off",
        "not_dumpable",
        "locked_buffers",
        "dontdump",
        "decrypt_into",
    }
    assert out["lease"].startswith("lease_")
    assert out["locked_kib"] >= 64 + int(out["before"])  # the plaintext buffer is resident and locked
    assert out["core"] == ["0", "0"] and out["dumpable"] == 0 and out["tracer"] == "0"


def test_when_mlock_cannot_be_proven_reversible_cuts_are_disabled_with_the_reason(tmp_path: Path) -> None:
    out = _child(tmp_path, break_mlock=True)
    report = out["report"]
    assert not report["reversible_allowed"]
    assert "locked_buffers: mlock" in report["reason"] and "lease" not in out
    assert "reversible cuts are disabled" in out["refused"] and "irreversible cut" in out["refused"]
    assert out["irreversible_cut"] == "pass"  # irreversible cuts still work in the same process
    assert out["core"] == ["0", "0"] and out["dumpable"] == 0  # the other settings still applied


def test_the_process_report_is_computed_once_and_a_failure_sticks(monkeypatch: pytest.MonkeyPatch) -> None:
    from lychd_core.privacy.vault import hardening

    monkeypatch.setattr(hardening, "_report", None)
    calls: list[int] = []

    def failing() -> HardeningReport:
        calls.append(1)
        return HardeningReport((hardening.HardeningCheck("decrypt_into", False, "too old"),))

    first = harden_process(failing)
    assert harden_process(run_checks) is first and calls == [1] and not first.reversible_allowed
    monkeypatch.setattr(hardening, "_report", None)


def test_plaintext_buffers_are_zeroed_after_every_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[tuple[int, bool]] = []
    original = LockedBuffer.close

    def close(self: LockedBuffer) -> None:
        original(self)
        closed.append((self.size, self.is_zero()))

    monkeypatch.setattr(LockedBuffer, "close", close)
    with open_vault(tmp_path) as vault:
        grant = new_lease(vault)
        returned = model_return(*tokens_of(grant))
        claim = claim_for(returned)
        vault.claim(grant.lease_id, claim)
        rehydrate(vault, grant.lease_id, claim, returned, SCHEMA)
    assert len(closed) >= 4 and all(zeroed for _, zeroed in closed), closed


def test_a_locked_buffer_reports_nonzero_until_it_is_zeroed() -> None:
    buffer = LockedBuffer(16)
    buffer.view[:3] = b"abc"
    assert not buffer.is_zero()
    buffer.zero()
    assert buffer.is_zero()
    buffer.close()
    with pytest.raises(ValueError, match="closed"):
        _ = buffer.view
