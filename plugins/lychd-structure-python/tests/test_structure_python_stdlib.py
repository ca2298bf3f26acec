"""Done-when check over a deterministic sample of the standard library.

The outline (listing every non-underscore top-level definition, whatever ``__all__``
says) names exactly the definitions ``ast`` finds, with the same line numbers. The full
standard library is checked by ``benchmarks/bench_projection.py --full``.
"""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from lychd_structure_python import PROFILE, StructurePythonOptions
from lychd_structure_python import locate as locate_module
from lychd_structure_python.outline import outline_facts
from lychd_structure_python.profile import decode_python

from lychd_core.digests import sha256_digest
from lychd_core.families import Projected, SourceMaterial

SAMPLE_SIZE = 150
PUBLIC = StructurePythonOptions(definitions="public", methods="none", include_imports=False)


def stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts and p.is_file())


def sample(count: int) -> list[Path]:
    files = stdlib_files()
    step = max(1, len(files) // count)
    return files[::step][:count]


def ast_definitions(data: bytes) -> list[tuple[str, int]] | None:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return [(n.name, n.lineno) for n in tree.body if isinstance(n, kinds) and not n.name.startswith("_")]


def test_outline_lists_exactly_what_ast_finds_on_a_stdlib_sample() -> None:
    files = sample(SAMPLE_SIZE)
    assert len(files) == SAMPLE_SIZE
    compared = 0
    for path in files:
        data = path.read_bytes()
        expected = ast_definitions(data)
        material = SourceMaterial(str(path), "text/x-python", data, sha256_digest(data), 50_000_000, 10_000_000)
        result = PROFILE.project(material, PUBLIC)
        if expected is None or not isinstance(result, Projected):
            continue  # not Python 3 (test data): ast and libcst both refuse such files
        facts: Any = result.facts
        assert [(d["name"], d["line"]) for d in facts["definitions"]] == expected, path
        compared += 1
    assert compared >= SAMPLE_SIZE - 5


@pytest.mark.parametrize("path", sample(30), ids=lambda p: p.name)
def test_fast_and_exact_roads_agree(path: Path) -> None:
    source = decode_python(path.read_bytes())
    if not isinstance(source, str):
        return  # undecodable test data; covered by the bad-input tests
    options = StructurePythonOptions(definitions="all", methods="all", include_attributes=True)
    try:
        fast, _ = outline_facts(source, options)
    except Exception:
        return  # not parseable by libcst; covered by the bad-input tests
    original = locate_module.locate_fast
    locate_module.locate_fast = lambda *args: False
    try:
        exact, road = outline_facts(source, options)
    finally:
        locate_module.locate_fast = original
    assert road == "exact" and fast == exact
