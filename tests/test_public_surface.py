"""One public surface: every error is importable from ``lychd_core.errors`` and defined once;
the documentation imports only from ``lychd_core`` and ``lychd_core.errors`` (plus the contract
suites in ``lychd_core.testing`` and the adapters' own documented modules)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import lychd_core
from lychd_core import errors
from lychd_core.errors import LychdError
from tests.support.doc_blocks import DOCS, blocks_of, pages

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTED_MODULES = frozenset(
    {
        "lychd_core",
        "lychd_core.errors",
        "lychd_core.testing",
        "lychd_core.integrations",
        "lychd_core.integrations.pydantic_ai",
        "lychd_core.integrations.pydantic_ai_recall",
        "lychd_core.integrations.pydantic_ai_semantic",
        "lychd_core.integrations.langchain",
        "lychd_core.integrations.openai_agents",
    }
)
"""What a documented ``import`` may name inside ``lychd_core``; other packages (plugins, frameworks) are free."""


def error_classes() -> dict[str, list[type[LychdError]]]:
    """Every ``LychdError`` subclass defined in a ``lychd_core`` module, by name."""
    found: dict[str, list[type[LychdError]]] = {}
    for module_info in pkgutil.walk_packages(lychd_core.__path__, "lychd_core."):
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, LychdError) and value.__module__ == module.__name__:
                found.setdefault(value.__name__, []).append(value)
    return found


def test_every_error_is_defined_once_and_importable_from_lychd_core_errors() -> None:
    found = error_classes()
    assert len(found) > 100  # the walk really reached the packages
    twice = {name: [c.__module__ for c in classes] for name, classes in found.items() if len(classes) > 1}
    assert twice == {}, f"error names defined more than once: {twice}"
    missing = sorted(name for name, (cls,) in found.items() if getattr(errors, name, None) is not cls)
    assert missing == [], f"not re-exported by lychd_core.errors: {missing}"
    outside = sorted(
        f"{cls.__module__}.{name}"
        for name, (cls,) in found.items()
        if not cls.__module__.startswith("lychd_core.errors")
    )
    assert outside == [], f"errors defined outside the lychd_core.errors package: {outside}"
    assert set(found) <= set(errors.__all__)


def _python_blocks() -> list[tuple[str, str]]:
    """Every Python block of the docs and the README, run or shown; a shown signature excerpt
    that is not Python on its own (``f(a: int = ...)``) holds no import and is left out."""
    found = [(block.where(), block) for page in pages() for block in blocks_of(page)]
    found += [(f"README.md:{block.line}", block) for block in blocks_of(ROOT / "README.md")]
    sources = []
    for where, block in found:
        if block.language != "python":
            continue
        try:
            ast.parse(block.text)
        except SyntaxError:
            assert not block.runs, f"{where} is a Python block that runs but does not parse"
            continue
        sources.append((where, block.text))
    return sources


def imported_modules(text: str) -> list[str]:
    modules: list[str] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules.append(node.module)
        elif isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
    return modules


@pytest.mark.parametrize(("where", "text"), _python_blocks(), ids=[where for where, _ in _python_blocks()])
def test_documentation_imports_only_the_public_surface(where: str, text: str) -> None:
    inside = [m for m in imported_modules(text) if m == "lychd_core" or m.startswith("lychd_core.")]
    assert [m for m in inside if m not in DOCUMENTED_MODULES] == [], f"{where} imports past the public surface"


@pytest.mark.parametrize(("where", "text"), _python_blocks(), ids=[where for where, _ in _python_blocks()])
def test_what_the_documentation_imports_from_the_surface_is_exported(where: str, text: str) -> None:
    """Shown blocks too (``no-run``), which no test executes: each name is in the module's ``__all__``."""
    surfaces = {"lychd_core": set(lychd_core.__all__), "lychd_core.errors": set(errors.__all__)}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module in surfaces:
            unknown = [alias.name for alias in node.names if alias.name not in surfaces[node.module]]
            assert unknown == [], f"{where}: {node.module} does not export {unknown}"


def test_the_surface_check_sees_imports() -> None:
    assert imported_modules("from lychd_core.graph.nodes import ContextNode\nimport lychd_core.cli\n") == [
        "lychd_core.graph.nodes",
        "lychd_core.cli",
    ]
    assert DOCS.is_dir()
