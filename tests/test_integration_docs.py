"""The examples in docs/integrations/langchain.md and openai-agents.md run and print what
their comments say."""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs" / "integrations"


def examples(name: str) -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / name).read_text(), flags=re.S)
    runnable = [block for block in blocks if "print(" in block]
    assert runnable, f"no runnable example in {name}"
    return runnable


@pytest.mark.parametrize("name", ["langchain.md", "openai-agents.md"])
def test_the_documented_examples_run_and_print_what_they_say(name: str) -> None:
    for code in examples(name):
        promised = [
            match.group(1).split(":")[0].strip()
            for match in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", code, flags=re.M)
        ]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            exec(compile(code, str(DOCS / name), "exec", dont_inherit=True), {"__name__": "doc_example"})
        assert out.getvalue().splitlines() == promised
