"""What the outline says, selected by the options, with exact line provenance."""

from __future__ import annotations

import ast
from typing import Any

import pytest
from lychd_structure_python import PROFILE, StructurePythonOptions

from lychd_core.digests import canonical_json, sha256_digest
from lychd_core.families import Projected, SourceMaterial, Unavailable

MODULE = '''#!/usr/bin/env python3
# A comment before the docstring.
"""Tools for greeting.

A longer second paragraph
that spans lines.
"""

from __future__ import annotations

import os, sys as system
from . import sibling
from ..pkg.mod import (
    alpha,
    beta as b,
)

try:
    import tomllib
except ImportError:
    tomllib = None

if system.platform == "win32":
    from ntpath import join
else:
    from posixpath import join

__all__ = ["greet", "Greeter"]
__all__ += ["helper"]

CONSTANT: int = 3


@decorator
@other.decorator(
    "arg",
)
def greet(a, b: int = 1, /, c=None, *args: str, d: "list[int]" = [1, 2], **kw: Any) -> str:
    """Say hi."""
    return "hi"


async def helper(*, key) -> None:
    def inner():
        pass


def not_declared() -> None:
    pass


def _private():
    pass


class Greeter(Base, metaclass=Meta):
    """A greeter."""

    prefix: str = "hi"
    _hidden: int

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    @property
    def name(self) -> str:
        return ""

    def _internal(self):
        pass

    class Inner:
        value: int = 0

        def method(self):
            pass
'''


def outline(source: str = MODULE, **options: Any) -> Projected:
    data = source.encode("utf-8")
    material = SourceMaterial("m.py", "text/x-python", data, sha256_digest(data), 10_000_000, 1_000_000)
    result = PROFILE.project(material, StructurePythonOptions(**options))
    assert isinstance(result, Projected), result
    return result


def source_line(number: int) -> str:
    return MODULE.split("\n")[number - 1]


def test_default_outline_is_a_stable_stub() -> None:
    text = outline().text
    assert text.splitlines() == [
        '"""Tools for greeting."""  # L3',
        "from __future__ import annotations  # L9",
        "import os, sys as system  # L11",
        "from . import sibling  # L12",
        "from ..pkg.mod import alpha, beta as b  # L13",
        "import tomllib  # L19, conditional",
        "from ntpath import join  # L24, conditional",
        "from posixpath import join  # L26, conditional",
        '__all__ = ["greet", "Greeter", "helper"]  # L28',
        "@decorator  # L34",
        '@other.decorator("arg")  # L35',
        'def greet(a, b: int = 1, /, c=None, *args: str, d: "list[int]" = [1, 2], **kw: Any) -> str: ...  # L38',
        "async def helper(*, key) -> None: ...  # L43",
        "class Greeter(Base, metaclass=Meta):  # L56",
        '    prefix: str = "hi"  # L59',
        "    def __init__(self, prefix: str) -> None: ...  # L62",
        "    @property  # L65",
        "    def name(self) -> str: ...  # L66",
        "    class Inner:  # L72",
        "        value: int = 0  # L73",
        "        def method(self): ...  # L75",
    ]


def test_every_line_maps_to_the_source_line_it_describes() -> None:
    result = outline(definitions="all", methods="all")
    assert len(result.line_map) == len(result.text.splitlines())
    for text, number in zip(result.text.splitlines(), result.line_map, strict=True):
        if "# L" in text:
            assert text.rsplit("# L", 1)[1].split(",")[0] == str(number) or text.startswith('"""')
        head = text.split("  # ")[0].strip().split("(")[0].split(":")[0].split("=")[0].strip()
        words = [w for w in head.replace("@", " ").replace(".", " ").split() if w not in ("def", "async", "class")]
        if words and not text.startswith(("#", '"""', "__all__", "import", "from")):
            assert words[-1] in source_line(number), (text, number, source_line(number))


def test_outline_never_contains_bodies() -> None:
    text = outline(definitions="all", methods="all").text
    assert "return" not in text and "self.prefix = prefix" not in text and "inner" not in text


def test_definition_modes() -> None:
    def names(mode: str) -> list[str]:
        facts: Any = outline(definitions=mode).facts
        return [d["name"] for d in facts["definitions"]]

    assert names("declared") == ["greet", "helper", "Greeter"]
    assert names("public") == ["greet", "helper", "not_declared", "Greeter"]
    assert names("all") == ["greet", "helper", "not_declared", "_private", "Greeter"]
    assert names("none") == []


def test_public_lines_agree_with_ast() -> None:
    facts: Any = outline(definitions="public").facts
    tree = ast.parse(MODULE)
    expected = [
        (node.name, node.lineno)
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_")
    ]
    assert [(d["name"], d["line"]) for d in facts["definitions"]] == expected


def test_method_modes() -> None:
    def members(mode: str) -> list[str]:
        facts: Any = outline(methods=mode).facts
        return [m["name"] for m in facts["definitions"][-1].get("members", [])]

    assert members("public") == ["prefix", "__init__", "name", "Inner"]
    assert members("all") == ["prefix", "_hidden", "__init__", "name", "_internal", "Inner"]
    assert members("none") == []


def test_signature_facts_are_typed() -> None:
    facts: Any = outline().facts
    greet = facts["definitions"][0]
    assert [(p["name"], p["kind"]) for p in greet["parameters"]] == [
        ("a", "positional_only"),
        ("b", "positional_only"),
        ("c", "positional_or_keyword"),
        ("args", "var_positional"),
        ("d", "keyword_only"),
        ("kw", "var_keyword"),
    ]
    assert greet["parameters"][3]["annotation"] == "str"
    assert greet["returns"] == "str" and greet["async"] is False
    assert [d["text"] for d in greet["decorators"]] == ["@decorator", '@other.decorator("arg")']
    assert [d["line"] for d in greet["decorators"]] == [34, 35]
    greeter = facts["definitions"][-1]
    assert greeter["bases"] == ["Base"] and greeter["keywords"] == ["metaclass=Meta"]
    assert facts["definitions"][1]["async"] is True


def test_imports_public_and_docstring_facts() -> None:
    facts: Any = outline(module_docstring="full").facts
    assert facts["docstring"]["text"] == "Tools for greeting.\n\nA longer second paragraph\nthat spans lines."
    assert facts["docstring"]["line"] == 3
    assert facts["public"] == {"source": "__all__", "line": 28, "names": ["greet", "Greeter", "helper"]}
    modules = [(i["statement"], i["module"], i["level"], i["conditional"]) for i in facts["imports"]]
    assert modules[:4] == [
        ("from", "__future__", 0, False),
        ("import", None, 0, False),
        ("from", None, 1, False),
        ("from", "pkg.mod", 2, False),
    ]
    assert facts["imports"][1]["names"] == [{"name": "os", "asname": None}, {"name": "sys", "asname": "system"}]
    assert all(i["conditional"] for i in facts["imports"][4:])


def test_full_docstring_lines_map_one_to_one() -> None:
    result = outline(module_docstring="full", include_imports=False, include_public_symbols=False, definitions="none")
    assert result.text.splitlines()[:3] == ['"""Tools for greeting.', "", "A longer second paragraph"]
    assert result.line_map == (3, 4, 5, 6)


def test_parts_can_be_switched_off() -> None:
    result = outline(
        module_docstring="none",
        include_imports=False,
        include_public_symbols=False,
        include_signatures=False,
        include_decorators=False,
        include_bases=False,
        include_attributes=False,
        include_line_numbers=False,
    )
    assert result.text.splitlines() == [
        "def greet(...): ...",
        "async def helper(...): ...",
        "class Greeter:",
        "    def __init__(...): ...",
        "    def name(...): ...",
        "    class Inner:",
        "        def method(...): ...",
    ]
    facts: Any = result.facts
    assert "imports" not in facts and "public" not in facts and facts["docstring"] is None
    assert '"line":' not in canonical_json(facts).decode()
    assert result.line_map[0] == 38


def test_defaults_hidden_become_ellipsis() -> None:
    text = outline(include_defaults=False).text
    assert 'def greet(a, b: int = ..., /, c=..., *args: str, d: "list[int]" = ..., **kw: Any) -> str' in text


def test_public_names_without_all_and_computed_all() -> None:
    plain: Any = outline("X = 1\n_y = 2\ndef f(): pass\nclass _C: pass\n").facts
    assert plain["public"] == {"source": "names", "line": None, "names": ["X", "f"]}
    computed: Any = outline("from m import names\n__all__ = names + ['g']\ndef g(): pass\ndef h(): pass\n").facts
    assert computed["public"]["source"] == "names (__all__ is computed)"
    assert [d["name"] for d in computed["definitions"]] == ["g", "h"]


def test_type_parameters_and_multiline_fragments_are_flattened() -> None:
    source = "def f[T](x: dict[\n    str,  # key\n    int,\n] = {}) -> T: ...\nclass C[T](\n    Base,\n): ...\n"
    text = outline(source).text
    assert "def f[T](x: dict[str, int] = {}) -> T: ...  # L1" in text
    assert "class C[T](Base): ...  # L5" in text


def test_over_the_character_bound_refuses_instead_of_cutting() -> None:
    data = MODULE.encode()
    material = SourceMaterial("m.py", "text/x-python", data, sha256_digest(data), 10_000_000, 200)
    result = PROFILE.project(material, StructurePythonOptions())
    assert isinstance(result, Unavailable) and "over the bound of 200" in result.reason


def test_outline_is_deterministic_and_json_canonical() -> None:
    first, second = outline(), outline()
    assert first == second
    assert canonical_json(first.facts) == canonical_json(second.facts)


@pytest.mark.parametrize("mode", ["summary", "full"])
def test_empty_module(mode: str) -> None:
    result = outline("", module_docstring=mode)
    assert result.text == "# public names (no __all__): (none)" and result.line_map == (1,)
