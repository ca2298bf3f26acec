"""Line location: the fast road and the exact road agree with each other and with ``ast``."""

from __future__ import annotations

import ast
from typing import Any

import libcst as cst
from hypothesis import given
from hypothesis import strategies as st
from lychd_structure_python import locate as locate_module
from lychd_structure_python.extract import OutlineBuilder
from lychd_structure_python.options import StructurePythonOptions
from lychd_structure_python.outline import outline_facts

EVERYTHING = StructurePythonOptions(definitions="all", methods="all")


def lines_by_road(source: str, force_exact: bool, monkeypatch: Any = None) -> tuple[list[tuple[str, int]], str]:
    original = locate_module.locate_fast
    if force_exact:
        locate_module.locate_fast = lambda *args: False
    try:
        facts, road = outline_facts(source, EVERYTHING)
    finally:
        locate_module.locate_fast = original
    found: list[tuple[str, int]] = []

    def walk(items: list[dict[str, Any]]) -> None:
        for item in items:
            found.append((item["name"], item["line"]))
            walk(item.get("members", []))

    walk(facts["definitions"])
    found.extend((str(i["names"]), i["line"]) for i in facts["imports"])
    return found, road


def ast_lines(source: str) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []

    def walk(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.append((node.name, node.lineno))
            if isinstance(node, ast.ClassDef):
                walk([n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))])

    walk(ast.parse(source).body)
    return found


def test_fake_definitions_inside_strings_take_the_exact_road() -> None:
    source = 'TEMPLATE = """\ndef f():\nclass A:\n"""\n\ndef f():\n    pass\n\nclass A:\n    def m(self): pass\n'
    fast, road = lines_by_road(source, force_exact=False)
    assert road == "exact"
    assert [x for x in fast if x[0] in ("f", "A", "m")] == [("f", 6), ("A", 9), ("m", 10)]


def test_backslash_continuations_and_form_feeds() -> None:
    source = "x = 1 + \\\n    2\ndef \\\n  f():\n    pass\n\x0c\nclass B: pass\n"
    found, _ = lines_by_road(source, force_exact=False)
    assert [x for x in found if x[0] in ("f", "B")] == [x for x in ast_lines(source)]


def test_imports_in_one_line_suites_are_located() -> None:
    source = "import os\ntry: import json\nexcept ImportError: json = None\nif True: from a import b\n"
    found, _ = lines_by_road(source, force_exact=False)
    assert [line for _, line in found] == [1, 2, 4]


def test_same_method_names_in_sibling_classes() -> None:
    source = "".join(f"class C{i}:\n    def __init__(self): pass\n    def run(self): pass\n\n" for i in range(5))
    fast, road = lines_by_road(source, force_exact=False)
    exact, _ = lines_by_road(source, force_exact=True)
    assert road == "fast" and fast == exact
    assert [x for x in fast if x[0] != "[]"] == ast_lines(source)


def test_targets_record_the_keyword_line_not_the_decorator() -> None:
    source = "@a\n@b(\n  1,\n)\n\nasync def f(): pass\n"
    module = cst.parse_module(source)
    builder = OutlineBuilder(module, EVERYTHING)
    builder.collect()
    locate_module.locate_exact(module, locate_module.all_targets(builder.root))
    assert [t.line for t in builder.root.targets] == [6]


NAMES = st.sampled_from(["f", "g", "run", "A", "B"])


@st.composite
def modules(draw: st.DrawFn) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 8))):
        name = draw(NAMES)
        kind = draw(st.sampled_from(["def", "async", "class", "string", "comment", "if", "blank", "decorated"]))
        if kind == "def":
            parts.append(f"def {name}(x,\n        y=1):\n    return x\n")
        elif kind == "async":
            parts.append(f"async  def {name}(): pass\n")
        elif kind == "class":
            method = draw(NAMES)
            parts.append(f"class {name}(object):\n    '''doc\ndef {method}():\n'''\n    def {method}(self): pass\n")
        elif kind == "string":
            parts.append(f'S = """\ndef {name}(\nclass {name}:\n    def {name}(self):\n"""\n')
        elif kind == "comment":
            parts.append(f"# def {name}():\n")
        elif kind == "if":
            parts.append(f"if x:\n    def {name}(): pass\n    import os\n")
        elif kind == "decorated":
            parts.append(f"@d\n\n@e(\n  1)\ndef {name}(): pass\n")
        else:
            parts.append("\n")
    return "".join(parts)


@given(modules())
def test_generated_modules_fast_and_exact_agree_with_ast(source: str) -> None:
    fast, _ = lines_by_road(source, force_exact=False)
    exact, _ = lines_by_road(source, force_exact=True)
    assert fast == exact
    definitions = [x for x in fast if not x[0].startswith("[")]
    assert definitions == ast_lines(source)
