"""Repository-wide pytest setup: Hypothesis profiles.

CI runs the derandomized profile so a red run is reproducible; locally examples vary.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.support.sensitive import CAPTURED, leaks

settings.register_profile("dev", deadline=None, max_examples=60)
settings.register_profile(
    "ci", deadline=None, max_examples=60, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """Fail a test whose captured output or log, or output it handed over, holds a sensitive value."""
    report = yield
    if report.when == "call":
        texts = [content for _, content in report.sections] + CAPTURED
        CAPTURED.clear()
        found = leaks(texts)
        if found and report.passed:
            report.outcome = "failed"
            report.longrepr = f"captured output or log holds {len(found)} sensitive test value(s); receipts, logs "
            report.longrepr += "and command output must never carry them"
    return report
