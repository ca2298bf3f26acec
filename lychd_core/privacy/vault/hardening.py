"""The vault's hardening profile, applied and proven in the process that holds plaintext.

Checks: core dumps off (``RLIMIT_CORE`` 0), not dumpable and not ptrace-attachable by
peers (``PR_SET_DUMPABLE`` 0), plaintext pages lockable (``mlock``) and kept out of dumps
(``MADV_DONTDUMP`` where the platform has it), ``decrypt_into`` for decrypting into
those buffers, and optionally the whole process locked (``mlockall``). If any check
cannot be proven, reversible cuts are disabled with the reason (fail closed);
irreversible cuts do not need the vault and keep working.
"""

from __future__ import annotations

import mmap
import os
import resource
import sys
import threading
from collections.abc import Callable
from ctypes import get_errno
from dataclasses import dataclass

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from lychd_core.errors import LockError, ReversibleCutsDisabled
from lychd_core.privacy.vault.buffers import _LIBC, LockedBuffer

PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4
MCL_CURRENT, MCL_FUTURE = 1, 2
CAP_IPC_LOCK = 14
UNLOCKABLE_KIB = 64  # the kernel's vdso/vvar pages count as resident but cannot be locked


@dataclass(frozen=True, slots=True)
class HardeningCheck:
    """One proven (or unproven) property of this process."""

    name: str
    ok: bool
    detail: str

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class HardeningReport:
    """Every check, and whether reversible cuts may run in this process."""

    checks: tuple[HardeningCheck, ...]

    @property
    def reversible_allowed(self) -> bool:
        return all(check.ok for check in self.checks)

    @property
    def platform_ok(self) -> bool:
        return all(check.ok for check in self.checks if check.name == "platform")

    @property
    def reason(self) -> str:
        failed = [f"{c.name}: {c.detail}" for c in self.checks if not c.ok]
        return "; ".join(failed) if failed else "every hardening check passed"

    def require(self) -> None:
        """Raise :class:`ReversibleCutsDisabled` unless every check passed."""
        if not self.reversible_allowed:
            raise ReversibleCutsDisabled(
                f"reversible cuts are disabled in this process ({self.reason}); use an irreversible cut or stay local"
            )

    def to_json(self) -> dict[str, object]:
        return {
            "reversible_allowed": self.reversible_allowed,
            "reason": self.reason,
            "checks": [check.to_json() for check in self.checks],
        }


def _linux() -> HardeningCheck:
    ok = sys.platform.startswith("linux")
    return HardeningCheck("platform", ok, "Linux" if ok else f"{sys.platform} is not supported (needs Linux prctl)")


def _core_dumps() -> HardeningCheck:
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        limits = resource.getrlimit(resource.RLIMIT_CORE)
    except (OSError, ValueError) as exc:
        return HardeningCheck("core_dumps_off", False, f"setrlimit(RLIMIT_CORE, 0) failed: {exc}")
    ok = limits == (0, 0)
    return HardeningCheck("core_dumps_off", ok, f"RLIMIT_CORE is {limits}" + ("" if ok else ", expected (0, 0)"))


def _not_dumpable() -> HardeningCheck:
    prctl = getattr(_LIBC, "prctl", None)
    if prctl is None:
        return HardeningCheck("not_dumpable", False, "prctl is not available")
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    state = int(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0))
    ok = state == 0
    return HardeningCheck("not_dumpable", ok, f"PR_GET_DUMPABLE is {state}" + ("" if ok else ", expected 0"))


def _locked_buffers() -> tuple[HardeningCheck, HardeningCheck]:
    try:
        probe = LockedBuffer(mmap.PAGESIZE)
    except LockError as exc:
        return (
            HardeningCheck("locked_buffers", False, str(exc)),
            HardeningCheck("dontdump", False, "not checked: no locked buffer"),
        )
    with probe:
        probe.view[:4] = b"\x01\x02\x03\x04"
        dontdump = probe.dontdump
    available = getattr(mmap, "MADV_DONTDUMP", None) is not None
    detail = "MADV_DONTDUMP applied" if dontdump else "MADV_DONTDUMP is not available on this platform"
    return (
        HardeningCheck("locked_buffers", True, "mlock of a plaintext page succeeded; buffers are zeroed after use"),
        HardeningCheck("dontdump", dontdump or not available, detail),
    )


def _decrypt_into() -> HardeningCheck:
    ok = hasattr(AESGCM, "decrypt_into")
    detail = "AESGCM.decrypt_into decrypts into locked buffers" if ok else "cryptography lacks AESGCM.decrypt_into"
    return HardeningCheck("decrypt_into", ok, detail)


def _status() -> dict[str, str]:
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            return {key: value.strip() for key, _, value in (line.partition(":") for line in handle)}
    except OSError:
        return {}


def _lock_all_memory() -> HardeningCheck:
    """``mlockall(MCL_CURRENT | MCL_FUTURE)``, only where later allocations cannot fail because of it."""
    name = "lock_all_memory"
    soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    privileged = bool(int(_status().get("CapEff", "0"), 16) >> CAP_IPC_LOCK & 1)
    if soft != resource.RLIM_INFINITY and not privileged:
        return HardeningCheck(
            name,
            False,
            f"not attempted: without CAP_IPC_LOCK, RLIMIT_MEMLOCK ({soft} bytes) would make every allocation past "
            "it fail under MCL_FUTURE; grant CAP_IPC_LOCK or an unlimited RLIMIT_MEMLOCK",
        )
    mlockall = getattr(_LIBC, "mlockall", None)
    if mlockall is None:
        return HardeningCheck(name, False, "mlockall is not available")
    if mlockall(MCL_CURRENT | MCL_FUTURE) != 0:
        return HardeningCheck(name, False, f"mlockall(MCL_CURRENT|MCL_FUTURE) failed: {os.strerror(get_errno())}")
    status = _status()
    locked, resident = (int(status.get(key, "0 kB").split()[0]) for key in ("VmLck", "VmRSS"))
    ok = locked + UNLOCKABLE_KIB >= resident
    detail = f"mlockall(MCL_CURRENT|MCL_FUTURE): VmLck {locked} kB, VmRSS {resident} kB"
    return HardeningCheck(name, ok, detail + ("" if ok else " (resident pages are not locked)"))


def run_checks(*, lock_all_memory: bool = False) -> HardeningReport:
    """Apply every setting to this process and prove it (idempotent).

    ``lock_all_memory`` adds ``mlockall(MCL_CURRENT | MCL_FUTURE)``: every page of the process,
    Python objects included, stays out of swap. It fails closed (and is not attempted) when a
    finite ``RLIMIT_MEMLOCK`` without ``CAP_IPC_LOCK`` would make later allocations fail.
    """
    platform = _linux()
    if not platform.ok:
        return HardeningReport((platform,))
    checks = (platform, _core_dumps(), _not_dumpable(), *_locked_buffers(), _decrypt_into())
    return HardeningReport(checks + ((_lock_all_memory(),) if lock_all_memory else ()))


_lock = threading.Lock()
_report: HardeningReport | None = None


def harden_process(
    check: Callable[[], HardeningReport] = run_checks, *, lock_all_memory: bool = False
) -> HardeningReport:
    """The process-wide report, computed once (a check that failed stays failed).

    Asking for ``lock_all_memory`` after the report exists adds that check to it; once
    locked, the process stays locked.
    """
    global _report
    with _lock:
        if _report is None:
            _report = check()
        if lock_all_memory and _report.platform_ok and all(c.name != "lock_all_memory" for c in _report.checks):
            _report = HardeningReport((*_report.checks, _lock_all_memory()))
        return _report
