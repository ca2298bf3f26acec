"""The parser worker loads libcst and the outline modules only (issue 30: its start-up is paid by every cold run)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lychd_structure_python import StructurePythonOptions
from lychd_structure_python.choices import OutlineChoices
from lychd_structure_python.outline import outline_facts
from lychd_structure_python.worker import handle

SOURCE = (
    '"""Doc."""\nimport os\n\n\nclass A(B):\n    x: int = 1\n\n    def m(self, y=2): ...\n\n\n'
    "def f(a, *b, **c) -> int:\n    return 1\n"
)


def test_the_worker_process_imports_neither_pydantic_nor_the_core() -> None:
    code = (
        "import sys\n"
        "from lychd_structure_python.worker import main\n"
        "import lychd_structure_python.outline\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'pydantic', 'pydantic_core', 'lychd_core'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_choices_have_the_options_fields_and_defaults() -> None:
    plain = {field.name: field.default for field in dataclasses.fields(OutlineChoices)}
    model = {name: info.default for name, info in StructurePythonOptions.model_fields.items()}
    assert plain == model


option_values = st.fixed_dictionaries(
    {
        "module_docstring": st.sampled_from(["none", "summary", "full"]),
        "definitions": st.sampled_from(["none", "declared", "public", "all"]),
        "methods": st.sampled_from(["none", "public", "all"]),
        **{name: st.booleans() for name in ("include_imports", "include_signatures", "include_line_numbers")},
    }
)


@given(option_values)
def test_the_worker_outlines_as_the_validated_options_do(values: dict[str, object]) -> None:
    options = StructurePythonOptions.model_validate(values)
    reply = handle({"source": SOURCE, "options": options.model_dump(mode="json")})
    assert reply == {"facts": outline_facts(SOURCE, options)[0], "road": outline_facts(SOURCE, options)[1]}


@pytest.mark.parametrize(
    ("options", "named"), [({"definition": "all"}, "definition"), ({"methods": "public", "x": 1}, "'x'")]
)
def test_unknown_options_are_an_explained_refusal(options: dict[str, object], named: str) -> None:
    reply = handle({"source": SOURCE, "options": options})
    assert set(reply) == {"unavailable"}
    assert "unknown structure.python options" in reply["unavailable"] and named in reply["unavailable"]
