"""File- and module-level parts: Go package docs, Rust //! docs, declare global, CommonJS exports and require()."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_structure_treesitter import PROFILES, StructureTreeSitterOptions
from lychd_structure_treesitter.languages import TYPESCRIPT
from lychd_structure_treesitter.symbols import IDENTIFIER_ASCII, IDENTIFIER_BYTES, symbols_fact

from lychd_core.digests import canonical_json, sha256_digest
from lychd_core.families import Projected, SourceMaterial, Unavailable

BY_MEDIA_TYPE = {media: profile for profile in PROFILES for media in profile.media_types}
DEPTH = 5_000


def project(media_type: str, text: str | bytes, max_chars: int = 96_000, **options: Any) -> Projected | Unavailable:
    data = text.encode() if isinstance(text, str) else text
    source = SourceMaterial("x", media_type, data, sha256_digest(data), 20_000_000, max_chars)
    outcome = BY_MEDIA_TYPE[media_type].project(source, StructureTreeSitterOptions(**options))
    if isinstance(outcome, Projected):
        assert len(outcome.line_map) == len(outcome.text.splitlines()) and len(outcome.text) <= max_chars
        canonical_json(outcome.facts)
    return outcome


def outline(media_type: str, text: str, **options: Any) -> tuple[str, Any]:
    outcome = project(media_type, text, **options)
    assert isinstance(outcome, Projected), outcome
    return outcome.text, outcome.facts


def test_go_package_doc_is_outlined_before_the_package_clause() -> None:
    text, facts = outline("text/x-go", "// Package kv stores values.\n// It is small.\npackage kv\n\nfunc Get() {}\n")
    assert text.splitlines()[:3] == ["// Package kv stores values.", "// It is small.", "package kv  // L3"]
    assert facts["doc"] == {"line": 1, "lines": ["Package kv stores values.", "It is small."]}
    detached, facts = outline("text/x-go", "// A licence header.\n\npackage kv\n")
    assert "doc" not in facts and detached == "package kv  // L3"
    quiet, facts = outline("text/x-go", "// Package kv.\npackage kv\n", doc_lines=0)
    assert "doc" not in facts and quiet == "package kv  // L2"


def test_rust_inner_docs_document_the_crate_and_modules() -> None:
    source = (
        "// licence\n//! The crate.\n//! Second line.\n\n/// Outer.\nfn f() {}\n"
        "mod m {\n    //! Inner m.\n    fn g() {}\n}\n"
    )
    text, facts = outline("text/x-rust", source)
    assert text.splitlines()[:2] == ["//! The crate.", "//! Second line."]
    assert facts["doc"] == {"line": 2, "lines": ["The crate.", "Second line."]}
    module = next(d for d in facts["definitions"] if d["name"] == "m")
    assert module["doc"] == {"line": 8, "lines": ["Inner m."]}
    _, facts = outline("text/x-rust", "/// Outer m.\nmod m {\n    //! Inner m.\n}\n")
    assert facts["definitions"][0]["doc"]["lines"] == ["Outer m."]
    block, facts = outline("text/x-rust", "/*! Block crate doc. */\nfn f() {}\n")
    assert facts["doc"]["lines"] == ["Block crate doc."] and block.startswith("//! Block crate doc.")
    _, facts = outline("text/x-rust", "fn f() {}\n//! not leading\n")
    assert "doc" not in facts


def test_typescript_declare_global_is_a_scope() -> None:
    source = (
        "export {};\n/** Window additions. */\ndeclare global {\n"
        "  interface Window { app: App }\n  var debug: boolean;\n}\n"
    )
    text, facts = outline("text/x-typescript", source)
    assert "declare global {  // L3" in text and "    interface Window {  // L4" in text
    block = next(d for d in facts["definitions"] if d["kind"] == "global")
    assert block["doc"]["lines"] == ["Window additions."]
    assert {m["name"] for m in block["members"]} == {"Window", "debug"}
    assert {"Window", "debug"} <= set(facts["symbols"]["defines"])
    shallow, _ = outline("text/x-typescript", source, members="none")
    assert "declare global {" in shallow
    tsx, _ = outline("text/x-tsx", source)
    assert "declare global {  // L3" in tsx


@pytest.mark.parametrize("media_type", ["text/javascript", "text/x-typescript"])
def test_commonjs_exports_are_outlined(media_type: str) -> None:
    source = (
        "module.exports = function main(a) { return a; };\n"
        "exports.limit = 10;\n"
        "module.exports.Store = class Store { get(k) { return k; } };\n"
        "exports.table = { alpha: 1, beta: 2, gamma: 3, delta: 4, epsilon: 5 };\n"
        'exports["odd-name"] = 1;\nother.thing = 2;\nfunction f() { exports.inner = 1; }\n'
    )
    text, facts = outline(media_type, source)
    lines = text.splitlines()
    assert lines[:3] == [
        "module.exports = function main(a) { … }  // L1",
        "exports.limit = 10  // L2",
        "module.exports.Store = class Store {  // L3",
    ]
    assert "exports.table = …  // L4" in lines
    assert "odd-name" not in text and "other.thing" not in text and "inner" not in text
    kinds = {(d["kind"], d["name"]) for d in facts["definitions"]}
    assert {("function", None), ("export", "limit"), ("class", "Store"), ("export", "table")} <= kinds
    assert {"limit", "Store", "table", "get"} <= set(facts["symbols"]["defines"])


@pytest.mark.parametrize("media_type", ["text/javascript", "text/x-typescript", "text/x-tsx"])
def test_commonjs_require_calls_are_imports(media_type: str) -> None:
    source = (
        '"use strict";\n'
        'const fs = require("fs");\n'
        "const { join, dirname } = require('node:path');\n"
        'const a = require("a"), b = require("b");\n'
        'const util = require("util").promisify;\n'
        'require("./polyfill");\n'
        'const c = require("c"), n = 1;\n'
        "let dynamic = require(name);\n"
        'var other = load("q");\n'
        'function f() { const inner = require("inner"); }\n'
    )
    text, facts = outline(media_type, source)
    imports = [(i["line"], i["module"], i["text"]) for i in facts["imports"]]
    assert imports == [
        (2, "fs", 'const fs = require("fs");'),
        (3, "node:path", "const { join, dirname } = require('node:path');"),
        (4, "a", 'const a = require("a")'),
        (4, "b", 'const b = require("b")'),
        (5, "util", 'const util = require("util").promisify;'),
        (6, "./polyfill", 'require("./polyfill");'),
    ]
    assert text.splitlines()[:2] == [
        'const fs = require("fs");  // L2',
        "const { join, dirname } = require('node:path');  // L3",
    ]
    # Not imports: a declaration that also defines a plain value, a computed name, another call, a nested require.
    names = {d["name"] for d in facts["definitions"]}
    assert {"c", "n", "dynamic", "other", "f"} <= names and not {"fs", "a", "util"} & names
    assert "inner" not in {i["module"] for i in facts["imports"]}
    assert "fs" in facts["symbols"]["references"] and "fs" not in facts["symbols"]["defines"]
    bare, facts = outline(media_type, source, include_imports=False)
    assert "imports" not in facts and 'require("fs")' not in bare


@settings(max_examples=30, deadline=None)
@given(
    name=st.from_regex(r"[a-z][a-zA-Z0-9_]{0,10}", fullmatch=True),
    module=st.from_regex(r"[a-z@./:_-][a-z0-9@./:_-]{0,20}", fullmatch=True),
)
def test_every_required_module_is_an_import_with_its_line(name: str, module: str) -> None:
    source = f'// header\nconst {name} = require("{module}");\n'
    outcome = project("text/javascript", source)
    if isinstance(outcome, Unavailable):  # a keyword where JavaScript wants a name
        return
    facts: Any = outcome.facts
    assert facts["imports"] == [{"line": 2, "module": module, "text": f'const {name} = require("{module}");'}]
    assert all(d["name"] != name for d in facts["definitions"])


@pytest.mark.parametrize(
    ("media_type", "data"),
    [
        ("text/x-go", b"//" + b" x\n//" * DEPTH + b"\npackage p\n"),
        ("text/x-rust", b"//! doc line\n" * DEPTH + b"fn f() {}\n"),
        ("text/x-rust", b"mod m {\n//! inner\n" * 200 + b"}\n" * 200),
        ("text/x-typescript", b"export {};\ndeclare global {\n" + b"namespace N {" * DEPTH + b"}" * DEPTH + b"}\n"),
        ("text/javascript", b"module.exports = " + b"(" * DEPTH + b"1" + b")" * DEPTH + b";\n"),
        ("text/javascript", b"exports.a = exports.b = " * DEPTH + b"1;\n"),
        ("text/javascript", b"const x = require(" + b"(" * DEPTH + b'"m"' + b")" * DEPTH + b");\n"),
        ("text/javascript", b'const m = require("m")' + b".a" * DEPTH + b";\n"),
    ],
)
def test_hostile_module_level_input_stays_bounded(media_type: str, data: bytes) -> None:
    outcome = project(media_type, data)
    assert outcome == project(media_type, data)
    assert isinstance(outcome, Projected), outcome
    assert len(outcome.text.splitlines()) < 40 and len(outcome.text) < 4_000


def test_a_minified_commonjs_bundle_is_refused_not_cut() -> None:
    # lines of 1,000 exports: one 3.9 MB line would meet the single-line bound before parsing (bounds.py)
    data = b"".join(b"exports.f%d=function(b){return b+1};%s" % (n, b"\n"[: n % 1000 == 999]) for n in range(100_000))
    outcome = project("text/javascript", data, max_chars=96_000)
    assert isinstance(outcome, Unavailable) and "never cut" in outcome.reason


@settings(max_examples=30, deadline=None)
@given(name=st.from_regex(r"[a-z][a-zA-Z0-9_]{0,10}", fullmatch=True), value=st.integers(0, 10**6))
def test_every_commonjs_export_name_is_defined_with_its_line(name: str, value: int) -> None:
    source = f"// header\nexports.{name} = {value};\n"
    outcome = project("text/javascript", source)
    if isinstance(outcome, Unavailable):  # a keyword where JavaScript wants a name
        return
    facts: Any = outcome.facts
    assert any(d["name"] == name and d["line"] == 2 for d in facts["definitions"])


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=0x17F, codec="utf-8"), max_size=80))
def test_the_ascii_identifier_scan_equals_the_bytes_scan(text: str) -> None:
    data = text.encode("utf-8")
    tokens = {token.decode("utf-8") for token in set(IDENTIFIER_BYTES.findall(data))}
    expected = sorted({token for token in tokens if token.isidentifier()} - TYPESCRIPT.keywords)
    assert symbols_fact(data, TYPESCRIPT, [])["references"] == expected


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet="ab_Z09 .-(\n", max_size=60))
def test_the_ascii_word_split_finds_exactly_the_identifier_pattern(text: str) -> None:
    """Words split in C with their leading digits stripped are what the identifier pattern finds."""
    expected = sorted(set(IDENTIFIER_ASCII.findall(text)) - TYPESCRIPT.keywords)
    assert symbols_fact(text.encode("ascii"), TYPESCRIPT, [])["references"] == expected
