"""Meta-tests: every hook documented and tested, every config field described, files small."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from lychd_core import hookspecs
from lychd_core.cli import config_docs

ROOT = Path(__file__).resolve().parents[1]
HOOKS = [name for name in dir(hookspecs) if name.startswith("lychd_") and callable(getattr(hookspecs, name))]


def signature_text(name: str) -> str:
    sig = inspect.signature(getattr(hookspecs, name))
    params = ", ".join(f"{p.name}: {p.annotation}" for p in sig.parameters.values())
    return f"{name}({params}) -> {sig.return_annotation}"


def test_there_are_six_hooks() -> None:
    assert sorted(HOOKS) == [
        "lychd_register_compressors",
        "lychd_register_privacy_profiles",
        "lychd_register_projection_profiles",
        "lychd_register_ranking_profiles",
        "lychd_register_role_policies",
        "lychd_register_token_counters",
    ]


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_documented_with_its_exact_signature(hook: str) -> None:
    docs = (ROOT / "docs" / "plugin_hooks.md").read_text()
    assert f"## {hook}\n" in docs
    assert signature_text(hook) in docs


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_has_a_test(hook: str) -> None:
    """A top-level test function of the hook's own name (one pytest collects) that names the hook
    in its code: not a mention in a comment or docstring, not a nested or empty function."""
    wanted = f"test_hook_{hook.removeprefix('lychd_')}"
    tree = ast.parse((ROOT / "tests" / "test_hooks.py").read_text())
    defined = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert wanted in defined, f"tests/test_hooks.py has no top-level {wanted}()"
    body = defined[wanted].body
    code = body[1:] if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else body
    named = {n.value for statement in code for n in ast.walk(statement) if isinstance(n, ast.Constant)}
    assert hook in named, f"{wanted}() never uses the hook {hook!r} in its code"


def test_every_config_field_has_description_and_example() -> None:
    missing = [key for key, info in config_docs.iter_fields() if not info.description or not info.examples]
    assert missing == []


def test_configuration_reference_is_generated_and_current() -> None:
    assert (ROOT / "docs" / "configuration.md").read_text() == config_docs.render(), (
        "regenerate with: python -m lychd_core.cli.config_docs > docs/configuration.md"
    )


def source_files() -> list[Path]:
    return sorted(p for d in ("lychd_core", "plugins") for p in (ROOT / d).rglob("*.py") if "build" not in p.parts)


def test_source_files_stay_under_700_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in source_files() if (n := len(p.read_text().splitlines())) > 700}
    assert long == {}


def counted_lines(path: Path) -> int:
    """Lines of an ``__init__``, less its ``if TYPE_CHECKING:`` block: a lazy package lists
    its names there for type checkers and again in the table ``lazy_attribute`` reads."""
    import ast

    text = path.read_text()
    typing_only = sum(
        node.end_lineno - node.lineno + 1
        for node in ast.parse(text).body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING" and node.end_lineno is not None
    )
    return len(text.splitlines()) - typing_only


def test_package_inits_are_re_exports_under_80_lines() -> None:
    inits = [p for p in source_files() if p.name == "__init__.py"]
    long = [str(p.relative_to(ROOT)) for p in inits if counted_lines(p) > 80]
    assert inits and long == []


TOP_LEVEL = {
    "__init__",
    "lazy",
    "gcpause",
    "version",
    "blocks",
    "config",
    "digests",
    "errors",
    "families",
    "history",
    "hookspecs",
    "labels",
    "mediatypes",
    "plugins",
    "registry",
    "roles",
    "vocabulary",
}


def test_top_level_holds_only_core_types_and_the_plugin_host() -> None:
    modules = {p.stem for p in (ROOT / "lychd_core").glob("*.py")}
    assert modules - TOP_LEVEL == set(), "a pipeline stage belongs in its own subpackage"


def test_public_entry_points_import_from_the_package() -> None:
    import lychd_core

    for name in lychd_core.__all__:
        assert getattr(lychd_core, name) is not None


def test_projection_modules_do_not_import_each_other_in_a_cycle() -> None:
    import ast
    import graphlib

    folder = ROOT / "lychd_core" / "projection"
    edges: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lychd_core.projection."):
                imported.add(str(node.module).rsplit(".", 1)[1])
        edges[path.stem] = imported
    graphlib.TopologicalSorter(edges).prepare()  # raises CycleError on a cycle


def test_importing_the_package_loads_neither_pydantic_nor_a_stage() -> None:
    """Every submodule import pays ``lychd_core/__init__`` first; it re-exports lazily (issue 30)."""
    code = "import sys, lychd_core\nprint(sorted(m for m in sys.modules if m.startswith(('pydantic', 'lychd_core.'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['lychd_core.lazy', 'lychd_core.version']"  # standard library only


def test_every_lazy_export_resolves_and_is_listed() -> None:
    import importlib

    lazy = [p for p in source_files() if p.name == "__init__.py" and "_EXPORTS = {" in p.read_text()]
    assert len(lazy) >= 5
    for path in lazy:
        name = ".".join(path.relative_to(ROOT).parent.parts)
        package = importlib.import_module(name)
        table = {n for names in package._EXPORTS.values() for n in names.split()}
        assert table == set(package.__all__) - {"__version__"}, name
        assert all(getattr(package, n) is not None for n in table), name
