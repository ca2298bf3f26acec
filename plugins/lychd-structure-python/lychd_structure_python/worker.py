"""The parser worker: libcst runs in a child process, so no input can crash the caller.

libcst's native parser overflows its stack on deeply nested input (about 1,500 nested
parentheses segfault the process) and takes super-linear time on some long operator
chains. A parse therefore runs in a long-lived child process that is restarted after a
crash and killed after a time limit; either way the caller gets an explained
*unavailable* outcome. Frames are a 4-byte big-endian length and UTF-8 JSON.
"""

from __future__ import annotations

import atexit
import json
import multiprocessing
import multiprocessing.util
import os
import selectors
import signal
import struct
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any, BinaryIO

_HEADER = struct.Struct(">I")
MAX_FRAME = 512 * 1024 * 1024
STARTUP_LIMIT = 60.0
_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)


# --- child side -------------------------------------------------------------------


def _read_exact(stream: BinaryIO, size: int) -> bytes | None:
    chunks = []
    remaining = size
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def handle(request: dict[str, Any]) -> dict[str, Any]:
    """Outline one source; every failure becomes an explained reason."""
    import libcst

    from lychd_structure_python.choices import OutlineChoices
    from lychd_structure_python.outline import OutlineError, outline_facts

    try:
        options = OutlineChoices.from_json(request["options"])
    except (TypeError, ValueError) as exc:  # the caller validated them; a mismatch is a bug, still explained
        return {"unavailable": f"the parser worker refused the options: {exc}"}
    try:
        facts, road = outline_facts(request["source"], options)
    except libcst.ParserSyntaxError as exc:
        first = str(exc).strip().splitlines()
        detail = " ".join(line.strip() for line in first[:3] if line.strip())
        return {"unavailable": f"libcst cannot parse the source (not Python 3 syntax?): {detail[:300]}"}
    except RecursionError:
        return {"unavailable": "the source is nested too deeply to outline (recursion limit reached)"}
    except MemoryError:
        return {"unavailable": "outlining the source ran out of memory"}
    except OutlineError as exc:
        return {"unavailable": str(exc)}
    except Exception as exc:  # any other libcst failure is explained, never raised into the caller
        return {"unavailable": f"libcst failed on the source: {type(exc).__name__}: {str(exc)[:300]}"}
    return {"facts": facts, "road": road}


def main() -> None:
    """Serve requests on stdin/stdout until stdin closes."""
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    import lychd_structure_python.outline  # noqa: F401  (imported before "ready", outside any time limit)

    ready = json.dumps({"ready": True}).encode("utf-8")
    stdout.write(_HEADER.pack(len(ready)) + ready)
    stdout.flush()
    while True:
        header = _read_exact(stdin, _HEADER.size)
        if header is None:
            return
        body = _read_exact(stdin, _HEADER.unpack(header)[0])
        if body is None:
            return
        reply = json.dumps(handle(json.loads(body)), ensure_ascii=False).encode("utf-8")
        stdout.write(_HEADER.pack(len(reply)) + reply)
        stdout.flush()


# --- parent side ------------------------------------------------------------------


class WorkerFailure(Exception):
    """The worker crashed, hung or broke the protocol; the message is the reason."""


def _signal_name(returncode: int | None) -> str:
    if returncode is None or returncode >= 0:
        return f"exit status {returncode}"
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


class ParserWorker:
    """A lazily started child process; one request at a time; restarted after a failure."""

    def __init__(self, time_limit: float) -> None:
        self.time_limit = time_limit
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._owner_pid = 0

    def _start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_PARENT, env.get("PYTHONPATH")) if p)
        proc = subprocess.Popen(
            [sys.executable, "-c", "from lychd_structure_python.worker import main; main()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._proc, self._owner_pid = proc, os.getpid()
        _LIVE.add(self)
        _close_at_exit()
        deadline = time.monotonic() + STARTUP_LIMIT
        try:
            size = _HEADER.unpack(self._read(proc, _HEADER.size, deadline, "starting"))[0]
            if size > MAX_FRAME or json.loads(self._read(proc, size, deadline, "starting")) != {"ready": True}:
                raise self._fail(proc, "the parser worker did not start properly")
        except WorkerFailure as exc:
            raise WorkerFailure(f"the parser worker could not start: {exc}") from None
        return proc

    def _current(self) -> subprocess.Popen[bytes]:
        proc = self._proc
        if proc is None or self._owner_pid != os.getpid() or proc.poll() is not None:
            return self._start()  # a forked child never reuses its parent's worker
        return proc

    def close(self) -> None:
        """Stop the child (it exits when its stdin closes; killed if it does not)."""
        proc, self._proc = self._proc, None
        if proc is None or self._owner_pid != os.getpid():
            return
        try:
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    def _fail(self, proc: subprocess.Popen[bytes], reason: str) -> WorkerFailure:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        self._proc = None
        return WorkerFailure(reason)

    def request(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Send one request; raise WorkerFailure when the child crashes or runs out of time."""
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        with self._lock:
            proc = self._current()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(_HEADER.pack(len(body)) + body)
                proc.stdin.flush()
            except OSError:
                raise self._crashed(proc) from None
            deadline = time.monotonic() + self.time_limit
            header = self._read(proc, _HEADER.size, deadline)
            size = _HEADER.unpack(header)[0]
            if size > MAX_FRAME:
                raise self._fail(proc, f"the parser worker sent a malformed reply ({size} bytes)")
            reply: dict[str, Any] = json.loads(self._read(proc, size, deadline))
            return reply

    def _crashed(self, proc: subprocess.Popen[bytes]) -> WorkerFailure:
        proc.wait()
        self._proc = None
        return WorkerFailure(
            f"the libcst parser process crashed ({_signal_name(proc.returncode)}); input nested too deeply "
            "or otherwise beyond the native parser's limits"
        )

    def _read(self, proc: subprocess.Popen[bytes], size: int, deadline: float, waiting: str = "parsing") -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        chunks: list[bytes] = []
        remaining = size
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while remaining:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(timeout=left):
                    limit = self.time_limit if waiting == "parsing" else STARTUP_LIMIT
                    raise self._fail(proc, f"{waiting} did not finish within {limit:g} s")
                chunk = os.read(fd, min(remaining, 1 << 20))
                if not chunk:
                    raise self._crashed(proc)
                chunks.append(chunk)
                remaining -= len(chunk)
        return b"".join(chunks)


_LIVE: set[ParserWorker] = set()
_FINALIZED_IN: set[int] = set()


def _close_all() -> None:
    for worker in list(_LIVE):
        worker.close()


def _close_at_exit() -> None:
    """Stop this process's workers when it exits, including multiprocessing children (which skip atexit)."""
    pid = os.getpid()
    if pid in _FINALIZED_IN:
        return
    _FINALIZED_IN.add(pid)
    if multiprocessing.parent_process() is not None:
        multiprocessing.util.Finalize(None, _close_all, exitpriority=10)
    else:
        atexit.register(_close_all)


if __name__ == "__main__":
    main()
