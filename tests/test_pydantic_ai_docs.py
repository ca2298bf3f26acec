"""The example in docs/integrations/pydantic-ai.md runs and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "integrations" / "pydantic-ai.md"


def example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert blocks, "no python example in the doc"
    return str(blocks[0])


def test_the_documented_example_runs_and_prints_what_it_says() -> None:
    code = example()
    promised = [
        match.group(1).split(":")[0].strip() for match in re.finditer(r"^print\(.*\)\s+# (.*)$", code, flags=re.M)
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "doc_example"})
    assert out.getvalue().splitlines() == promised


def test_the_documented_api_names_exist() -> None:
    import lychd_core.integrations as integrations

    text = DOC.read_text()
    for name in re.findall(r"^(\w+)(?:\.\w+)?\(", text.split("## API", 1)[1], flags=re.M):
        assert hasattr(integrations, name), name
