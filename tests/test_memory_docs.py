"""docs/memory.md stays true: its Python example runs, and it names every reason and error."""

from __future__ import annotations

import re
from pathlib import Path

import lychd_core.errors as memory_errors
from lychd_core.memory import ExclusionReason
from lychd_core.memory.records import ClaimType

DOC = Path(__file__).resolve().parents[1] / "docs" / "memory.md"


def test_python_example_runs() -> None:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    runnable = [block for block in blocks if "import" in block]
    assert runnable, "docs/memory.md lost its Python example"
    for block in runnable:
        exec(compile(block, str(DOC), "exec"), {})


def test_every_reason_claim_type_and_record_error_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for reason in ExclusionReason:
        if reason not in (ExclusionReason.RESULT_LIMIT, ExclusionReason.TOKEN_LIMIT):
            assert f"| `{reason.value}` |" in text, reason
        assert reason.value in text
    for kind in ClaimType:
        assert f"`{kind.value}`" in text
    documented = {
        name
        for name, value in vars(memory_errors).items()
        if isinstance(value, type) and issubclass(value, Exception) and name in text
    }
    missing = {
        name
        for name, value in vars(memory_errors).items()
        if isinstance(value, type) and issubclass(value, Exception) and value.__module__ == memory_errors.__name__
    } - documented
    assert not missing, missing
