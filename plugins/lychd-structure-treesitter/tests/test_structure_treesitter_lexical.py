"""A valid file the grammar cannot parse is offered as a declared lexical outline, never lost.

``golden/h.ts`` is modelled on vue's early ``h.ts`` (written for this test): an interface
with a generic call signature ``<P>(...)`` after a line without a semicolon, which
TypeScript accepts and the tree-sitter grammar reads as a comparison, reporting an error.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tree_sitter
from lychd_structure_treesitter import PROFILES, StructureTreeSitterOptions
from lychd_structure_treesitter.languages import language

from lychd_core.digests import sha256_digest
from lychd_core.families import Projected, SourceMaterial, Unavailable

GOLDEN = Path(__file__).resolve().parent / "golden"
BY_MEDIA_TYPE = {media: profile for profile in PROFILES for media in profile.media_types}
H_TS = (GOLDEN / "h.ts").read_bytes()


def project(media_type: str, data: bytes, options: StructureTreeSitterOptions | None = None) -> object:
    source = SourceMaterial("x", media_type, data, sha256_digest(data), 2_000_000, 96_000)
    return BY_MEDIA_TYPE[media_type].project(source, options or StructureTreeSitterOptions())


def test_the_grammar_really_rejects_the_file() -> None:
    assert tree_sitter.Parser(language("typescript")).parse(H_TS).root_node.has_error


def test_a_generic_call_signature_file_gets_a_declared_lexical_outline() -> None:
    outcome = project("text/x-typescript", H_TS)
    assert isinstance(outcome, Projected), outcome
    assert outcome.text + "\n" == (GOLDEN / "h.ts.outline").read_text(encoding="utf-8")
    first = outcome.text.splitlines()[0]
    assert first.startswith("// lexical outline: the typescript grammar reports") and "not parsed" in first
    [omission] = outcome.omissions
    assert omission.kind == "lexical-outline" and "line 7" in omission.reason
    assert "<P>(tag: Component<P>, props?: P, children?: any): VNode  // L7" in outcome.text
    assert "return createVNode" not in outcome.text  # bodies omitted, never full text
    assert len(outcome.line_map) == len(outcome.text.splitlines())
    facts = outcome.facts
    assert isinstance(facts, dict) and facts["outline"] == "lexical"
    assert {"H", "h", "cloneVNode"} <= set(facts["symbols"]["defines"])
    assert [i["module"] for i in facts["imports"]] == ["./vdom", "./vdom/create"]


def test_the_lexical_outline_offers_the_coarser_views() -> None:
    outcome = project("text/x-typescript", H_TS)
    assert isinstance(outcome, Projected)
    views = dict(BY_MEDIA_TYPE["text/x-typescript"].resolutions(outcome.facts, frozenset({"clone"})))
    assert views["names"] == "interface H\nconstant h\nfunction cloneVNode"
    assert "export function cloneVNode(vnode: VNode): VNode  // L17" in views["signatures"]


def test_options_still_select_parts() -> None:
    bare = StructureTreeSitterOptions(include_imports=False, members="none", include_line_numbers=False)
    outcome = project("text/x-typescript", H_TS, bare)
    assert isinstance(outcome, Projected)
    assert "import" not in outcome.text and "// L" not in outcome.text and "<P>" not in outcome.text


@pytest.mark.parametrize(
    ("media_type", "data"),
    [
        ("text/x-go", b"package p\n\nfunc F() int { return 1 }\n\nfunc G() { x := [}\n\nfunc H() {}\n"),
        ("text/x-rust", b"pub fn f() -> i32 { 1 }\n\nfn g() { let x = [; }\n\npub struct S { a: i32 }\n"),
        ("text/x-java", b"class A {\n  void m() { int x = ; }\n  void n() {}\n}\n"),
        ("text/javascript", b"export function f() { return 1 }\nfunction g() { let = ; }\nclass C { m() {} }\n"),
    ],
)
def test_a_local_error_in_each_language_keeps_its_declarations(media_type: str, data: bytes) -> None:
    outcome = project(media_type, data)
    assert isinstance(outcome, Projected), outcome
    assert outcome.text.startswith("// lexical outline:") and outcome.omissions[0].kind == "lexical-outline"
    assert outcome == project(media_type, data)  # deterministic


def test_another_language_is_still_refused() -> None:
    python = b'import os\n\n\ndef greet(name: str) -> str:\n    """Hi."""\n    return f"hi {name}"\n'
    outcome = project("text/x-typescript", python)
    assert isinstance(outcome, Unavailable) and "grammar reports" in outcome.reason
