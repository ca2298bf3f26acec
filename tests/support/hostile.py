"""Driving the ``lychd`` command with hostile input: in-process and in subprocesses.

Every run is held to the CLI contract: exit code 0, 1 or 2, no traceback and no
"internal error" on stderr, and (in a subprocess) completion within a time limit.
"""

from __future__ import annotations

import json
import os
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
SUBPROCESS_SECONDS = 30.0
PYTHON_FILE = "def greet(name):\n    return f'hello {name}'\n"


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str
    seconds: float


def check_contract(outcome: Outcome, what: object = "") -> Outcome:
    assert outcome.code in CONTRACT_CODES, f"{what}: exit {outcome.code}\n{outcome.err}"
    assert "Traceback" not in outcome.err, f"{what}: traceback\n{outcome.err}"
    assert "internal error" not in outcome.err, f"{what}: untyped failure\n{outcome.err}"
    return outcome


def run_in_process(argv: Sequence[str], capsys: pytest.CaptureFixture[str], *, limit: float = 20.0) -> Outcome:
    """``main(argv)`` in this process, held to the contract and to ``limit`` seconds."""
    started = time.monotonic()
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors and --help
        code = exc.code if isinstance(exc.code, int) else 2
    seconds = time.monotonic() - started
    out, err = capsys.readouterr()
    outcome = check_contract(Outcome(code, out, err, seconds), list(argv))
    assert seconds < limit, f"{list(argv)} took {seconds:.1f} s"
    return outcome


def run_subprocess(
    args: Sequence[str],
    *,
    stdin: Any = subprocess.DEVNULL,
    stdout: Any = subprocess.PIPE,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    shell_suffix: str = "",
) -> Outcome:
    """``python -m lychd_core.cli ARGS`` in a subprocess, killed past :data:`SUBPROCESS_SECONDS`."""
    command: Any = [sys.executable, "-m", "lychd_core.cli", *args]
    if shell_suffix:  # e.g. '>&-' to run with a closed stdout
        command = " ".join(subprocess.list2cmdline([part]) for part in command) + " " + shell_suffix
    started = time.monotonic()
    try:
        result = subprocess.run(
            command,
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            timeout=SUBPROCESS_SECONDS,
            shell=bool(shell_suffix),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{list(args)} hung for more than {SUBPROCESS_SECONDS} s") from None
    out = result.stdout.decode("utf-8", "replace") if isinstance(result.stdout, bytes) else ""
    outcome = Outcome(result.returncode, out, result.stderr.decode("utf-8", "replace"), time.monotonic() - started)
    return check_contract(outcome, list(args))


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

signal.signal(signal.SIGALRM, alarm)
cases, seconds = json.loads(sys.argv[1]), int(sys.argv[2])
results = []
real_out, real_err = sys.stdout, sys.stderr
for argv in cases:
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    started = time.monotonic()
    signal.alarm(seconds)
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
        signal.alarm(0)
    results.append({"code": code, "out": sys.stdout.getvalue(), "err": sys.stderr.getvalue(),
                    "seconds": time.monotonic() - started})
sys.stdout, sys.stderr = real_out, real_err
print(json.dumps(results))
"""


def run_batch(
    cases: Sequence[Sequence[str]], *, seconds_each: int = 10, env: dict[str, str] | None = None
) -> list[Outcome]:
    """Many ``main(argv)`` calls in one subprocess, each cut off by SIGALRM after ``seconds_each``.

    One interpreter start for a batch keeps the dangerous cases (special files, plugins
    that hang) out of the test process without paying a start-up per case.
    """
    try:
        result = subprocess.run(
            [sys.executable, "-c", BATCH_DRIVER, json.dumps([list(case) for case in cases]), str(seconds_each)],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=seconds_each * len(cases) + 30,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the batch {cases} hung past every alarm") from None
    assert result.returncode == 0, result.stderr
    outcomes = []
    for case, item in zip(cases, json.loads(result.stdout.splitlines()[-1]), strict=True):
        assert item["code"] != -1, f"{case} hung for more than {seconds_each} s"
        outcomes.append(check_contract(Outcome(item["code"], item["out"], item["err"], item["seconds"]), case))
    return outcomes


def distribution(site: Path, name: str, entry_point: str, module: str, source: str) -> None:
    """A minimal installed distribution: ``<name>-1.0.dist-info`` plus its hook module."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[lychd]\n{entry_point} = {module}\n")
    (site / f"{module}.py").write_text(source)
