"""Readability limits of the core: no function over 60 lines, no module far over 400."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "lychd_core"
MAX_FUNCTION_LINES = 60
# "Files stay under ~400 lines": the tilde leaves room for a docstring or two, not a second module.
MAX_MODULE_LINES = 420


def long_functions(source: str, max_lines: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """(qualified name, lines) of every function in `source` longer than `max_lines`, decorators included."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                lines = (child.end_lineno or child.lineno) - first + 1
                if lines > max_lines:
                    found.append((prefix + child.name, lines))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(ast.parse(source), "")
    return found


def test_the_measure_sees_long_functions_and_methods() -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    source = f"def short():\n    return 1\n\nclass C:\n    @staticmethod\n    def long():\n{body}\n"
    assert long_functions(source) == [("C.long", MAX_FUNCTION_LINES + 2)]
    assert long_functions(source, max_lines=MAX_FUNCTION_LINES + 2) == []


def test_no_function_in_the_core_is_over_60_lines() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}: {name} ({lines} lines)"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, lines in long_functions(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "split these by responsibility:\n" + "\n".join(offenders)


def test_no_module_in_the_core_is_far_over_400_lines() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}: {count} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert offenders == [], "split these by responsibility:\n" + "\n".join(offenders)
