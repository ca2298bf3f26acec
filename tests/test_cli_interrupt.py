"""Ctrl-C and long runs: a real SIGINT to a real `lychd assemble`, and the progress bar on a real TTY.

A third-party projection profile (installed as a distribution with an entry point) hangs
on one file after writing a marker; the test waits for the marker, sends SIGINT, and
checks the outcome: `interrupted`, exit 130, no plugin blamed, the cache usable. Every
wait is a hang guard, never a speed assertion.
"""

from __future__ import annotations

import io
import os
import pty
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console

from lychd_core.cli.progress import LONG_WORK, progress_bar
from lychd_core.compression.runner import call_compressor
from lychd_core.errors import CompressorFailedError
from lychd_core.families import SourceMaterial, Unavailable
from lychd_core.projection import outcomes, worker
from tests.support.hostile import distribution

HANG_GUARD_SECONDS = 300.0
"""Past this the run is taken to hang (the test fails); never a bound on how fast it is."""

SLOW_PROFILE = """
import os, pathlib, time
from types import MappingProxyType
from pydantic import BaseModel, ConfigDict
from lychd_core.families import Projected
from lychd_core.hookspecs import hookimpl


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Slow:
    name = "acme.slow"
    revision = 1
    options_model = Options
    media_types = frozenset({"text/x-slow"})
    file_media_types = MappingProxyType({".slow": "text/x-slow"})
    parser_version = "slow 1"
    time_bounded = TIME_BOUNDED

    def project(self, source, options):
        text = source.data.decode("utf-8")
        marker = os.environ.get("ACME_MARKER")
        if marker and "hang" in text:
            pathlib.Path(marker).write_text("projecting")
            while True:
                time.sleep(0.01)
        return Projected(text.upper(), {}, tuple(range(1, len(text.splitlines()) + 1)))


@hookimpl
def lychd_register_projection_profiles(register):
    register(Slow())
"""

CONFIG = """schema_version = 1
[role_policy]
name = "roles.standard"
revision = 1
[projection.rules."text/x-slow"]
profile = "acme.slow"
revision = 1
"""


def sigint_as_on_a_terminal() -> None:
    """A test run started as a background job inherits SIGINT ignored (POSIX), and Python then
    never raises KeyboardInterrupt: give the CLI the handling an interactive shell gives it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def lychd_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "lychd_core.cli", *args]


def slow_workspace(root: Path, site: Path, time_bounded: bool) -> Path:
    distribution(site, "acme-slow", "acme-slow", "acme_slow", SLOW_PROFILE.replace("TIME_BOUNDED", str(time_bounded)))
    (root / "src").mkdir(parents=True)
    (root / "lychd.toml").write_text(CONFIG)
    for name, text in (("a.slow", "one\n"), ("b.slow", "two\n"), ("c.slow", "hang\n")):
        (root / "src" / name).write_text(text)
    return root


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        lychd_command(*args),
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=HANG_GUARD_SECONDS,
        check=False,
    )


@pytest.mark.parametrize("time_bounded", [True, False], ids=["in-process", "worker-process"])
def test_ctrl_c_inside_a_plugin_is_interrupted_blames_no_plugin_and_keeps_the_cache(
    tmp_path: Path, time_bounded: bool
) -> None:
    site = tmp_path / "site"
    ws = slow_workspace(tmp_path / "ws", site, time_bounded)
    marker = tmp_path / "marker"
    args = ["assemble", "--workspace", str(ws), "--material", "src", "--query", "q", "--format", "prompt"]
    env = {"PYTHONPATH": str(site), "COLUMNS": "100"}
    process = subprocess.Popen(
        lychd_command(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env, "ACME_MARKER": str(marker)},
        preexec_fn=sigint_as_on_a_terminal,
    )
    try:
        guard = time.monotonic() + HANG_GUARD_SECONDS
        while not marker.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < guard, "the profile never started projecting"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=HANG_GUARD_SECONDS)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    assert err.strip() == "interrupted" and out == ""
    # The files projected before the interrupt are cached, and the cache gives what a fresh run gives.
    listed = run(["project", "--workspace", str(ws), "src", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    assert '"status": "cached"' in listed.stdout, "the projections made before Ctrl-C were kept"
    again = run(args, env)
    fresh_ws = tmp_path / "fresh"
    shutil.copytree(ws, fresh_ws, ignore=shutil.ignore_patterns(".lychd"))
    fresh = run([*args[:1], "--workspace", str(fresh_ws), *args[3:]], env)
    assert again.returncode == 0 and fresh.returncode == 0, (again.stderr, fresh.stderr)
    assert again.stdout == fresh.stdout and "HANG" in again.stdout


def test_a_keyboard_interrupt_in_a_profile_call_propagates() -> None:
    class Interrupted:
        pin = "acme.stop@1"
        distribution = "acme-stop"

        class obj:
            @staticmethod
            def project(source: object, options: object) -> None:
                raise KeyboardInterrupt

    source = SourceMaterial("a.txt", "text/plain", b"x", "sha256:" + "0" * 64, 10, 10)
    with pytest.raises(KeyboardInterrupt):
        outcomes.run_profile(Interrupted(), None, source)  # type: ignore[arg-type]


def test_a_profile_that_raises_keyboard_interrupt_in_a_worker_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    class Registry:
        def resolve(self, *args: object) -> object:
            class Plugin:
                class obj:
                    class options_model:
                        @staticmethod
                        def model_validate(options: object) -> object:
                            return options

            return Plugin()

    monkeypatch.setattr(worker, "run_profile", interrupted)
    source = SourceMaterial("a.txt", "text/plain", b"x", "sha256:" + "0" * 64, 10, 10)
    kind, value = worker.answer(Registry(), ("acme.stop", 1, {}, source))  # type: ignore[arg-type]
    assert kind == "ok" and isinstance(value, Unavailable) and "KeyboardInterrupt" in value.reason


def test_a_keyboard_interrupt_in_a_compressor_propagates_while_other_failures_are_typed() -> None:
    class Pin:
        class policy:
            id = "acme.squash@1"

        options = None

        def __init__(self, raised: BaseException) -> None:
            self.raised = raised
            outer = self

            class Compressor:
                def propose(self, request: object, options: object) -> None:
                    raise outer.raised

            self.compressor = Compressor()

    with pytest.raises(KeyboardInterrupt):
        call_compressor(Pin(KeyboardInterrupt()), None)  # type: ignore[arg-type]
    with pytest.raises(CompressorFailedError, match="SystemExit"):
        call_compressor(Pin(SystemExit(3)), None)  # type: ignore[arg-type]


def test_the_progress_bar_shows_only_for_long_work_on_a_terminal() -> None:
    terminal = Console(file=io.StringIO(), force_terminal=True, width=80)
    with progress_bar("projecting", LONG_WORK + 1, terminal) as advance:
        assert advance is not None
        advance(LONG_WORK + 1)
    assert isinstance(terminal.file, io.StringIO) and "projecting" in terminal.file.getvalue()
    pipe = Console(file=io.StringIO(), force_terminal=False)
    with progress_bar("projecting", 1000, pipe) as advance:
        assert advance is None
    with progress_bar("projecting", LONG_WORK, terminal) as advance:
        assert advance is None


def test_assemble_shows_progress_on_a_tty_stderr_and_never_on_stdout(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    for index in range(LONG_WORK + 5):
        (tmp_path / "pkg" / f"m{index}.py").write_text(f"def f{index}() -> int:\n    return {index}\n")
    args = lychd_command("assemble", "--workspace", str(tmp_path), "--material", "pkg", "--query", "f3?")
    args += ["--format", "prompt"]
    primary, secondary = pty.openpty()
    seen: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                return
            if not chunk:
                return
            seen.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        result = subprocess.run(args, stdout=subprocess.PIPE, stderr=secondary, timeout=HANG_GUARD_SECONDS, check=False)
    finally:
        os.close(secondary)
    reader.join(HANG_GUARD_SECONDS)
    os.close(primary)
    assert result.returncode == 0
    assert b"projecting" in b"".join(seen), "a person watching stderr sees the bar"
    assert b"projecting" not in result.stdout and b"\x1b[" not in result.stdout
    piped = subprocess.run(args, capture_output=True, timeout=HANG_GUARD_SECONDS, check=False)
    assert piped.returncode == 0 and piped.stderr == b"" and piped.stdout == result.stdout
