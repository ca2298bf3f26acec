"""Golden outlines per language, and an oracle: the grammar's own tags query.

The sources under ``golden/`` were written for these tests (Apache-2.0, like the
project). Each outline is compared byte for byte with its ``.outline`` file; the oracle
checks that every definition the grammar's shipped ``tags.scm`` reports at the top level
(or inside a top-level class, struct, trait, impl block or module) is in the outline's
facts, with its line.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import tree_sitter
import tree_sitter_go
import tree_sitter_java
import tree_sitter_javascript
import tree_sitter_rust
from lychd_structure_treesitter import PROFILES, StructureTreeSitterOptions
from lychd_structure_treesitter.languages import language

from lychd_core.digests import canonical_json, sha256_digest
from lychd_core.families import Projected, SourceMaterial

GOLDEN = Path(__file__).resolve().parent / "golden"
BY_MEDIA_TYPE = {media: profile for profile in PROFILES for media in profile.media_types}
SOURCES = {
    "inventory.js": ("text/javascript", "javascript"),
    "registry.cjs": ("text/javascript", "javascript"),
    "shapes.ts": ("text/x-typescript", "typescript"),
    "panel.tsx": ("text/x-tsx", "tsx"),
    "server.go": ("text/x-go", "go"),
    "ledger.rs": ("text/x-rust", "rust"),
    "Scheduler.java": ("text/x-java", "java"),
}
_TS_TAGS = (resources.files("tree_sitter_typescript") / "queries" / "tags.scm").read_text(encoding="utf-8")
TAGS = {
    "javascript": tree_sitter_javascript.TAGS_QUERY,
    "typescript": tree_sitter_javascript.TAGS_QUERY + _TS_TAGS,
    "tsx": tree_sitter_javascript.TAGS_QUERY + _TS_TAGS,
    "go": tree_sitter_go.TAGS_QUERY,
    "rust": tree_sitter_rust.TAGS_QUERY,
    "java": tree_sitter_java.TAGS_QUERY,
}
# Ancestors a definition may sit under and still be part of the outline's structure.
PASS_THROUGH = {
    "program",
    "source_file",
    "export_statement",
    "ambient_declaration",
    "lexical_declaration",
    "variable_declaration",
    "type_declaration",
    "class_body",
    "interface_body",
    "enum_body",
    "enum_body_declarations",
    "declaration_list",
    "field_declaration_list",
    "class_declaration",
    "abstract_class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "trait_item",
    "impl_item",
    "mod_item",
    "internal_module",
    "module",
    "expression_statement",
}


def project(name: str, options: StructureTreeSitterOptions | None = None) -> Projected:
    media_type, _ = SOURCES[name]
    data = (GOLDEN / name).read_bytes()
    source = SourceMaterial(name, media_type, data, sha256_digest(data), 2_000_000, 96_000)
    outcome = BY_MEDIA_TYPE[media_type].project(source, options or StructureTreeSitterOptions())
    assert isinstance(outcome, Projected), outcome
    return outcome


def flatten(definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for fact in definitions:
        found.append(fact)
        found.extend(flatten(fact.get("members", [])))
    return found


def in_outline_structure(node: tree_sitter.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if (
            parent.type == "statement_block"
            and parent.parent is not None
            and parent.parent.type
            in {
                "internal_module",
                "module",
            }
        ):
            parent = parent.parent
            continue
        if parent.type not in PASS_THROUGH:
            return False
        parent = parent.parent
    return True


def _names_it(fact: dict[str, Any], defined: str) -> bool:
    """The fact is the definition: same name, or ``module.exports = ...``, which the grammar names ``exports``."""
    if fact["name"] == defined:
        return True
    return defined == "exports" and fact["name"] is None and fact["signature"].startswith("module.exports =")


def grammar_definitions(name: str) -> list[tuple[str, str, int]]:
    """(kind, name, line) of every definition the grammar's tags query reports in the outline's structure."""
    _, lang = SOURCES[name]
    tree = tree_sitter.Parser(language(lang)).parse((GOLDEN / name).read_bytes())
    query = tree_sitter.Query(language(lang), TAGS[lang])
    found = []
    for _, captures in tree_sitter.QueryCursor(query).matches(tree.root_node):
        kinds = [capture for capture in captures if capture.startswith("definition.")]
        if not kinds or "name" not in captures:
            continue
        definition, name_node = captures[kinds[0]][0], captures["name"][0]
        if in_outline_structure(definition):
            found.append((kinds[0], (name_node.text or b"").decode(), name_node.start_point.row + 1))
    return found


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_golden_outline(name: str) -> None:
    outcome = project(name)
    expected = (GOLDEN / f"{name}.outline").read_text(encoding="utf-8")
    assert outcome.text + "\n" == expected
    assert len(outcome.line_map) == len(outcome.text.splitlines())
    source_lines = (GOLDEN / name).read_bytes().count(b"\n") + 1
    assert all(1 <= line <= source_lines for line in outcome.line_map)
    canonical_json(outcome.facts)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_definition_the_grammar_reports_is_outlined_with_its_line(name: str) -> None:
    facts: Any = project(name).facts
    outlined = flatten(facts["definitions"])
    reported = grammar_definitions(name)
    assert len(reported) >= 3, reported  # the oracle itself found something to check
    for kind, defined, line in reported:
        matches = [f for f in outlined if _names_it(f, defined) and f["line"] <= line <= f["end_line"]]
        assert matches, f"{kind} {defined!r} at line {line} is missing from the outline of {name}"


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_facts_match_structure_python_keys(name: str) -> None:
    facts: Any = project(name).facts
    assert facts["format"] == "structure.treesitter/1" and facts["language"] == SOURCES[name][1]
    assert set(facts) - {"doc"} == {"format", "language", "headers", "imports", "definitions", "symbols"}
    symbols = facts["symbols"]
    assert symbols["defines"] == sorted(set(symbols["defines"]))
    assert symbols["references"] == sorted(set(symbols["references"]))
    assert not set(symbols["defines"]) & set(symbols["references"])
    top = {f["name"] for f in facts["definitions"] if f["kind"] != "impl" and f["name"]}
    assert {n.strip() for name in top for n in name.split(",")} <= set(symbols["defines"])


EXPECTED_SYMBOLS = {
    "inventory.js": ({"Inventory", "paginate", "total", "load", "PAGE_SIZE", "add"}, {"EventEmitter", "defaultsDeep"}),
    "registry.cjs": (
        {"ROOT", "load", "find", "Registry", "defaults", "add"},
        {"__dirname", "process", "plugin", "path"},
    ),
    "shapes.ts": ({"Point", "Shape", "Circle", "largest", "Registry", "area"}, {"Serializer", "geometry"}),
    "panel.tsx": ({"Panel", "PanelProps", "Badge"}, {"useState", "React"}),
    "server.go": ({"Item", "Store", "NewMemoryStore", "Handler", "Get", "SKU"}, {"json", "http", "stdsync"}),
    "ledger.rs": ({"Entry", "Ledger", "Balanced", "total", "MAX_AMOUNT", "balance"}, {"BTreeMap", "Display"}),
    "Scheduler.java": ({"Scheduler", "schedule", "MIN_INTERVAL", "Tick", "Priority"}, {"Duration", "ArrayList"}),
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_symbols_name_definitions_and_references(name: str) -> None:
    facts: Any = project(name).facts
    defines, references = EXPECTED_SYMBOLS[name]
    assert defines <= set(facts["symbols"]["defines"])
    assert references <= set(facts["symbols"]["references"])


def test_imports_name_their_module() -> None:
    facts: dict[str, Any] = {n: project(n).facts for n in SOURCES}
    modules = {n: [i["module"] for i in facts[n]["imports"]] for n in SOURCES}
    assert modules["inventory.js"] == ["node:events", "./defaults.js", "./format.js"]
    assert modules["registry.cjs"] == ["node:path"]  # a CommonJS require() is an import
    assert modules["server.go"] == ["encoding/json", "errors", "net/http", "sync"]
    assert modules["ledger.rs"] == ["std::collections::BTreeMap", "std::fmt::{self, Display}"]
    assert modules["Scheduler.java"][0] == "java.time.Duration"


def test_options_select_parts_and_facts_follow() -> None:
    bare = StructureTreeSitterOptions(include_imports=False, members="none", doc_lines=0, include_line_numbers=False)
    outcome = project("ledger.rs", bare)
    facts: Any = outcome.facts
    assert "imports" not in facts and "use std" not in outcome.text
    assert "// L" not in outcome.text and "line" not in json.dumps(facts)
    assert "///" not in outcome.text and "fn post" not in outcome.text
    assert "impl Ledger { … }" in outcome.text


def test_long_docs_and_signatures_are_marked_when_cut() -> None:
    outcome = project("Scheduler.java", StructureTreeSitterOptions(doc_lines=1, max_signature_chars=40))
    assert "// Runs jobs at fixed intervals. …" in outcome.text
    assert any(line.split("  // L")[0].endswith(" …") for line in outcome.text.splitlines())
