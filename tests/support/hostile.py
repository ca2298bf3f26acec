"""Driving the ``lychd`` command with hostile input: in-process and in subprocesses.

Every run is held to the CLI contract: exit code 0, 1 or 2, no traceback and no
"internal error" on stderr, and completion. No bound here is a speed requirement (speed
lives in ``benchmarks/``): a run that spins is stopped by a generous CPU-time limit, one
that blocks by a generous wall-clock kill, so a loaded machine never fails a test.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lychd_core.cli import main

CONTRACT_CODES = (0, 1, 2)
CPU_LIMIT_SECONDS = 120
"""CPU time one run may use before it counts as hung (the slowest case needs a few seconds)."""
HANG_SECONDS = 600.0
"""Wall time after which a run that spends no CPU (blocked on a FIFO, asleep) counts as hung."""
PYTHON_FILE = "def greet(name):\n    return f'hello {name}'\n"


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str
    cpu_seconds: float
    """User + system CPU time the run took (its process, or the child process)."""


def check_contract(outcome: Outcome, what: object = "") -> Outcome:
    assert outcome.code in CONTRACT_CODES, f"{what}: exit {outcome.code}\n{outcome.err}"
    assert "Traceback" not in outcome.err, f"{what}: traceback\n{outcome.err}"
    assert "internal error" not in outcome.err, f"{what}: untyped failure\n{outcome.err}"
    return outcome


def run_captured(argv: list[str]) -> Outcome:
    """``main(argv)`` in this process with its output captured, held to the contract (no time bound)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return check_contract(Outcome(code, out.getvalue(), err.getvalue(), 0.0), argv)


def run_in_process(
    argv: Sequence[str], capsys: pytest.CaptureFixture[str], *, limit: float = CPU_LIMIT_SECONDS
) -> Outcome:
    """``main(argv)`` in this process, held to the contract and to ``limit`` seconds of CPU."""
    started = time.process_time()
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors and --help
        code = exc.code if isinstance(exc.code, int) else 2
    seconds = time.process_time() - started
    out, err = capsys.readouterr()
    outcome = check_contract(Outcome(code, out, err, seconds), list(argv))
    assert seconds < limit, f"{list(argv)} spun for {seconds:.1f} s of CPU"
    return outcome


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _limit_cpu() -> None:
    """In the child, before exec: past the limit the kernel stops it (SIGXCPU)."""
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_SECONDS, CPU_LIMIT_SECONDS))


def run_subprocess(
    args: Sequence[str],
    *,
    stdin: Any = subprocess.DEVNULL,
    stdout: Any = subprocess.PIPE,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    shell_suffix: str = "",
) -> Outcome:
    """``python -m lychd_core.cli ARGS`` in a subprocess, stopped past :data:`CPU_LIMIT_SECONDS`
    of CPU or :data:`HANG_SECONDS` of wall time (either means it hung)."""
    command: Any = [sys.executable, "-m", "lychd_core.cli", *args]
    if shell_suffix:  # e.g. '>&-' to run with a closed stdout
        command = " ".join(subprocess.list2cmdline([part]) for part in command) + " " + shell_suffix
    started = _children_cpu()
    try:
        result = subprocess.run(
            command,
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            timeout=HANG_SECONDS,
            shell=bool(shell_suffix),
            check=False,
            preexec_fn=_limit_cpu,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{list(args)} blocked for more than {HANG_SECONDS} s") from None
    out = result.stdout.decode("utf-8", "replace") if isinstance(result.stdout, bytes) else ""
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode != -24, f"{list(args)} spun past {CPU_LIMIT_SECONDS} s of CPU (SIGXCPU)"
    return check_contract(Outcome(result.returncode, out, err, _children_cpu() - started), list(args))


def workspace(root: Path) -> Path:
    """A small workspace: one Python file and one Markdown file."""
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "app.py").write_text(PYTHON_FILE)
    (root / "README.md").write_text("# readme\n")
    return root


def write(path: Path, data: str | bytes) -> str:
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return str(path)


def json_commands(ws: Path, file: str) -> list[list[str]]:
    """Every command that reads a JSON file the user names, reading ``file``."""
    return [
        ["select", file, "--window", "10000"],  # 1000 is refused by the budget before the file is read
        ["assemble", "--workspace", str(ws), "--query", "q", "--history", file],
        ["assemble", "--workspace", str(ws), "--query", "q", "--continuation", file],
        ["assemble", "--workspace", str(ws), "--query-file", file],
        ["memory", "add", file, "--workspace", str(ws)],
    ]


def config_commands(ws: Path, config: str, graph: str) -> list[list[str]]:
    """Every command that loads a configuration, loading ``config``."""
    w = ["--workspace", str(ws)]
    return [
        ["config", "validate", config],
        ["select", graph, "--window", "10000", "--config", config],
        ["project", *w, "--config", config, "src/app.py"],
        ["assemble", *w, "--config", config, "--query", "q", "--material", "src/app.py"],
        ["memory", "stats", *w, "--config", config],
        ["memory", "query", *w, "--config", config, "--role", "writer"],
        ["memory", "add", str(ws / "records.json"), *w, "--config", config],
        [
            "cut",
            "prepare",
            "report.txt",
            "--plan",
            "plan.toml",
            "--vocabulary",
            "vocabulary.toml",
            *w,
            "--config",
            config,
        ],
        ["vault", "status", *w, "--config", config],
        ["vault", "purge", *w, "--config", config],
    ]


EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def example_graph() -> dict[str, Any]:
    value: dict[str, Any] = json.loads((EXAMPLES / "graph.json").read_text())
    return value


def example_records() -> Any:
    return json.loads((EXAMPLES / "memory.json").read_text())


BATCH_DRIVER = """
import io, json, signal, sys, time
from lychd_core.cli import main

class Hung(Exception):
    pass

def alarm(signum, frame):
    raise Hung()

# SIGPROF: the case spun for its CPU allowance; SIGALRM: it blocked for the (generous) wall allowance.
signal.signal(signal.SIGPROF, alarm)
signal.signal(signal.SIGALRM, alarm)
cases, seconds, blocked = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
results = []
real_out, real_err = sys.stdout, sys.stderr
for argv in cases:
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    started = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.alarm(blocked)
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except Hung:
        code = -1
    except BaseException as exc:
        code = -2
        sys.stderr.write(f"Traceback: escaped {type(exc).__name__}: {exc}")
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
    results.append({"code": code, "out": sys.stdout.getvalue(), "err": sys.stderr.getvalue(),
                    "cpu_seconds": time.process_time() - started})
sys.stdout, sys.stderr = real_out, real_err
print(json.dumps(results))
"""


def run_batch(
    cases: Sequence[Sequence[str]], *, seconds_each: int = 60, env: dict[str, str] | None = None
) -> list[Outcome]:
    """Many ``main(argv)`` calls in one subprocess, each cut off after ``seconds_each`` of CPU
    (SIGPROF: it spins) or :data:`HANG_SECONDS` of wall time (SIGALRM: it blocks).

    One interpreter start for a batch keeps the dangerous cases (special files, plugins
    that hang) out of the test process without paying a start-up per case.
    """
    try:
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                BATCH_DRIVER,
                json.dumps([list(case) for case in cases]),
                str(seconds_each),
                str(int(HANG_SECONDS)),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=HANG_SECONDS * (len(cases) + 1),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the batch {cases} hung past every alarm") from None
    assert result.returncode == 0, result.stderr
    outcomes = []
    for case, item in zip(cases, json.loads(result.stdout.splitlines()[-1]), strict=True):
        assert item["code"] != -1, f"{case} hung (past {seconds_each} s of CPU or {HANG_SECONDS} s blocked)"
        outcomes.append(check_contract(Outcome(item["code"], item["out"], item["err"], item["cpu_seconds"]), case))
    return outcomes


def distribution(site: Path, name: str, entry_point: str, module: str, source: str) -> None:
    """A minimal installed distribution: ``<name>-1.0.dist-info`` plus its hook module."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[lychd]\n{entry_point} = {module}\n")
    (site / f"{module}.py").write_text(source)
