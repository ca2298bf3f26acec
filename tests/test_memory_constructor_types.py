"""The friendly constructors' annotations accept what they accept at run time.

A mypy --strict caller passes lists, sets, generators, mappings and plain strings for
enums to records, queries and tombstones: it must type-check, and it must run. A
control snippet proves the check can fail.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import pytest
from mypy import api as mypy_api

from lychd_core.memory import MemoryQuery, MemoryRecord

ROOT = Path(__file__).resolve().parents[1]

CALLER = textwrap.dedent(
    """
    from lychd_core.memory import MemoryQuery, MemoryRecord, MemoryScope, Tombstone, forget

    scope = MemoryScope(project="p")
    record = MemoryRecord(
        memory_id="m1",
        revision=1,
        scope=scope,
        claim_type="fact",
        claim="the build uses ruff",
        source_provenance="user",
        source_events=["e2", "e1", "e2"],
        confidence=8_000,
        token_estimate=12,
        created=1,
        observed=2,
        supporting={"s1", "s2"},
        contradicting=(c for c in ["c1"]),
        features={"python": 4_000, "lint": 2_000},
        state="active",
    )
    paired = MemoryRecord(
        memory_id="m2",
        revision=1,
        scope=scope,
        claim_type="lesson",
        claim="pin the linter",
        source_provenance="tool",
        source_events=frozenset({"e3"}),
        confidence=5_000,
        token_estimate=5,
        created=1,
        observed=1,
        features=[("lint", 9_000), ("ci", 1_000)],
    )
    query = MemoryQuery(
        scope=scope,
        now=3,
        claim_types=["fact", "lesson"],
        features={"python", "lint"},
        required_features=["lint"],
        scope_policy="exact",
    )
    stone = forget(record, "wrong", 3)
    again = Tombstone("m1", 1, stone.prior_digest.upper()[len("SHA256:") :], 3, "wrong")
    events: tuple[str, ...] = record.source_events  # stored canonical: still a tuple
    names: tuple[str, ...] = query.features
    pairs: tuple[tuple[str, int], ...] = paired.features
    assert events == ("e1", "e2") and names == ("lint", "python") and pairs == (("ci", 1_000), ("lint", 9_000))
    assert again == stone
    """
)


def run_mypy(source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, int]:
    snippet = tmp_path / "caller.py"
    snippet.write_text(source, encoding="utf-8")
    monkeypatch.chdir(ROOT)  # the project's mypy config and the package beside it
    config = str(ROOT / "pyproject.toml")
    out, err, status = mypy_api.run(
        ["--strict", "--config-file", config, "--cache-dir", str(tmp_path / "c"), str(snippet)]
    )
    return out + err, status


def test_a_strict_caller_passing_lists_sets_and_strings_type_checks_and_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report, status = run_mypy(CALLER, tmp_path, monkeypatch)
    assert status == 0, report
    exec(compile(CALLER, "caller.py", "exec"), {})  # and the same call runs, with its asserts


def test_the_type_check_can_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = CALLER + "\nMemoryQuery(scope=scope, now=3, features=[1, 2])\nrecord.source_events.append('x')\n"
    report, status = run_mypy(wrong, tmp_path, monkeypatch)
    assert status == 1
    assert 'List item 0 has incompatible type "int"; expected "str"' in report, report
    assert '"tuple[str, ...]" has no attribute "append"' in report, report


def type_checking_init(cls: type) -> ast.FunctionDef:
    """The ``__init__`` a class declares for type checkers only (under ``if TYPE_CHECKING``)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    found = [
        node
        for branch in ast.walk(tree)
        if isinstance(branch, ast.If) and ast.unparse(branch.test) == "TYPE_CHECKING"
        for node in branch.body
        if isinstance(node, ast.FunctionDef) and node.name == "__init__"
    ]
    assert len(found) == 1, f"{cls.__name__} declares no typed __init__"
    return found[0]


@pytest.mark.parametrize("cls", [MemoryRecord, MemoryQuery])
def test_the_declared_constructor_matches_the_runtime_one(cls: type) -> None:
    declared = type_checking_init(cls)
    runtime = list(inspect.signature(cls).parameters.values())
    assert not declared.args.args[1:] and all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in runtime)
    assert [a.arg for a in declared.args.kwonlyargs] == [p.name for p in runtime]
    has_default = [default is not None for default in declared.args.kw_defaults]
    assert has_default == [p.default is not inspect.Parameter.empty for p in runtime]
