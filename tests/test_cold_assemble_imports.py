"""A plain cold ``lychd assemble`` over Python files imports neither the Privacy Cut, the
vault nor a tree-sitter grammar (issue 30): the closed-diagnostic profile
is registered on every command, and the tree-sitter profiles too, so their modules load
what they need when a cut is prepared or a file of that language is outlined. The cost
itself is measured by ``benchmarks/bench_cold_assemble.py``; this test holds the structure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
from lychd_core.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

DEFERRED = (  # cryptography itself loads anyway: the projection cache's record MAC uses it
    "lychd_core.privacy.vault",
    "lychd_core.privacy.prepare",
    "lychd_core.privacy.seal",
    "lychd_core.privacy.verify",
    "lychd_core.privacy.receipts",
    "lychd_core.privacy.pseudonyms",
    "lychd_closed_diagnostic.censor",
    "lychd_closed_diagnostic.pip_audit",
    "tree_sitter_go",
    "tree_sitter_java",
    "tree_sitter_javascript",
    "tree_sitter_rust",
    "tree_sitter_typescript",
    "rich.progress",  # a bar only on a terminal
    "lychd_core.cli.assemble_explain",  # --explain only
)
"""Modules (and their submodules) a cold assemble of Python files must not import."""


def assemble_modules(workspace: Path) -> set[str]:
    command = [sys.executable, "-c", PROBE, "assemble", "--workspace", str(workspace), "--material", "pkg"]
    command += ["--query", "parse the config", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=workspace, check=False, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    reply = json.loads(done.stdout.strip().splitlines()[-1])
    assert reply["code"] in (0, None), done.stderr[-2000:]
    return set(reply["modules"])


def test_cold_assemble_of_python_files_defers_the_cut_the_vault_and_the_grammars(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "config.py").write_text(
        '"""Parse the config."""\n\n\ndef parse(text: str) -> dict[str, str]:\n    return {}\n'
    )
    (package / "cli.py").write_text("from pkg.config import parse\n\n\ndef main() -> None:\n    parse('')\n")
    modules = assemble_modules(tmp_path)
    assert "lychd_core.assembly" in modules and "lychd_closed_diagnostic.profile" in modules  # it did run
    loaded = sorted(m for m in modules if any(m == d or m.startswith(f"{d}.") for d in DEFERRED))
    assert loaded == [], f"a cold assemble of Python files imported {loaded}; import them where they are used"


def test_the_deferred_profiles_are_whole_when_used() -> None:
    from lychd_closed_diagnostic import PROFILE, REVERSIBLE_PROFILE
    from lychd_closed_diagnostic.censor import GRAMMAR
    from lychd_closed_diagnostic.pip_audit import PipAuditImporter
    from lychd_structure_treesitter.languages import LANGUAGES, language

    assert PROFILE.grammar is GRAMMAR and REVERSIBLE_PROFILE.grammar is GRAMMAR
    assert PROFILE.importers is REVERSIBLE_PROFILE.importers
    assert isinstance(PROFILE.importers["pip-audit"], PipAuditImporter)
    for name in LANGUAGES:
        assert language(name).node_kind_count > 0  # each lazily imported grammar loads
