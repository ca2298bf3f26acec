"""The capture scan: a test whose output or log carries a sensitive value fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.sensitive import SENSITIVE, leaks

ROOT = Path(__file__).resolve().parents[1]
LEAKY = """
import logging

def test_prints_a_secret():
    print("owner is acme-billing")

def test_logs_a_secret():
    logging.getLogger("x").warning("owner zz-private-owner")

def test_hands_over_a_secret():
    from tests.support.sensitive import captured
    captured("receipt for acme-secret-owner")

def test_clean():
    print("owner=<redacted>")
"""


def test_leaks_names_each_sensitive_value_found() -> None:
    assert leaks(["a acme-billing b", "zz-private-owner"]) == ["acme-billing", "zz-private-owner"]
    assert leaks(["owner=<redacted>", ""]) == []
    assert "acme-billing" in SENSITIVE


def test_the_root_conftest_fails_tests_that_leak(tmp_path: Path) -> None:
    (tmp_path / "test_leaky.py").write_text(LEAKY)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    summary = result.stdout.strip().splitlines()[-1]
    assert "3 failed, 1 passed" in summary, result.stdout[-2000:]
    assert "sensitive test value" in result.stdout
