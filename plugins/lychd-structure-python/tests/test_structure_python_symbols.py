"""The ``symbols`` facts ranking reads, and the coarser resolutions of an outline."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_structure_python import PROFILE, StructurePythonOptions

from lychd_core.digests import sha256_digest
from lychd_core.families import Projected, SourceMaterial

SOURCE = b'''"""Routing."""

import os
from .urls import url_quote

LIMIT = 3


class Map:
    """A map of rules."""

    def bind(self, server_name: str, *args: int, strict: bool = True, **extra: str) -> "MapAdapter":
        return MapAdapter(url_quote(server_name), os.sep)

    def match_rule(self, path):
        return BuildError(path)


def helper(value=1):
    return value
'''


def project(data: bytes, **options: Any) -> Projected:
    source = SourceMaterial("pkg/routing.py", "text/x-python", data, sha256_digest(data), 1_000_000, 1_000_000)
    outcome = PROFILE.project(source, StructurePythonOptions(**options))
    assert isinstance(outcome, Projected), outcome
    return outcome


def test_symbols_name_what_the_module_defines_and_uses() -> None:
    facts: Any = project(SOURCE).facts
    assert facts["symbols"]["defines"] == ["LIMIT", "Map", "bind", "helper", "match_rule"]
    references = facts["symbols"]["references"]
    assert {"MapAdapter", "BuildError", "url_quote", "os"} <= set(references)
    assert "Map" not in references and "def" not in references and "self" not in references
    assert references == sorted(set(references))


def test_the_outline_text_is_unchanged_by_the_new_facts() -> None:
    assert "symbols" not in project(SOURCE).text


def test_resolutions_are_coarser_each_step_and_keep_source_lines() -> None:
    projected = project(SOURCE)
    views = PROFILE.resolutions(projected.facts, frozenset({"bind"}))
    names = [name for name, _ in views]
    assert names == ["signatures", "names"]
    signatures, short = views[0][1], views[1][1]
    assert "def bind(self, server_name, *args, strict, **extra)  # L12" in signatures
    assert '"""' not in signatures and "import" not in signatures
    assert short.splitlines() == ["class Map: bind", "def helper"]
    assert len(projected.text) > len(signatures) > len(short)


def test_resolutions_without_definitions_offer_nothing() -> None:
    assert PROFILE.resolutions(project(b"import os\n").facts, frozenset()) == ()
    assert PROFILE.resolutions(None, frozenset()) == ()


def test_resolutions_without_line_numbers() -> None:
    views = PROFILE.resolutions(project(SOURCE, include_line_numbers=False).facts, frozenset())
    assert "# L" not in views[0][1] and views[1][1].splitlines() == ["class Map", "def helper"]


identifiers = st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True).filter(
    lambda n: n not in {"def", "if", "in", "is", "or", "as"}
)


@settings(max_examples=40, deadline=None)
@given(st.lists(identifiers, min_size=1, max_size=6, unique=True))
def test_every_defined_function_is_in_symbols_and_both_views(names: list[str]) -> None:
    import keyword

    names = [n for n in names if not keyword.iskeyword(n) and not keyword.issoftkeyword(n)]
    source = "".join(f"def {n}(x):\n    return x\n\n\n" for n in names) or "X = 1\n"
    facts: Any = project(source.encode()).facts
    assert set(names) <= set(facts["symbols"]["defines"])
    views = dict(PROFILE.resolutions(facts, frozenset()))
    for name in names:
        if not name.startswith("_"):
            assert f"def {name}" in views["names"]
