"""The outliner skips the module-level readers by node type; each skip must be one the reader would make itself.

``Outliner.scope`` calls ``commonjs_require`` only for the statements in ``_REQUIRE_KINDS``,
``global_block`` only for ``ambient_declaration`` and ``commonjs_export`` only for
``expression_statement`` (to save a call per top-level statement). If a reader learns a new
statement kind and the precheck is not updated, these tests fail.
"""

from __future__ import annotations

from pathlib import Path

import tree_sitter
from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_structure_treesitter import StructureTreeSitterOptions
from lychd_structure_treesitter.languages import JAVASCRIPT, TYPESCRIPT, LanguageSpec, parser
from lychd_structure_treesitter.module_level import commonjs_export, commonjs_require, global_block
from lychd_structure_treesitter.outline import _REQUIRE_KINDS, Outliner

GOLDEN = Path(__file__).parent / "golden"
STATEMENTS = [
    'const a = require("a");',
    'const { b, c } = require("bc"), d = require("d").e;',
    'require("side-effect");',
    'var f = require("f")',
    'let g = require("g").h.i;',
    "module.exports = { a, b };",
    "exports.run = function run(x) { return x; };",
    "module.exports.name = class Named {};",
    "declare global { interface Window { debug: boolean } }",
    "export default function main() {}",
    'export * from "./re";',
    "import x = require('x');",
    "namespace N { export const v = 1; }",
    "if (require) { require('nested'); }",
    "for (const k of []) {}",
    "label: { break label; }",
    "class K { m() {} }",
    "function f() { return require('inner'); }",
    "const plain = 1, other = 2;",
    "enum E { A }",
    "type T = string;",
    "export = thing;",
    "debugger;",
    ";",
]


def readers_agree(data: bytes, spec: LanguageSpec) -> None:
    tree = parser(spec.name).parse(data)
    outliner = Outliner(data, spec, StructureTreeSitterOptions(), 96_000)
    for child in tree.root_node.named_children:
        kind = child.type
        if kind not in _REQUIRE_KINDS:
            assert commonjs_require(outliner, child, 0) is None, kind
        if kind != "ambient_declaration":
            assert global_block(child) is None, kind
        if kind != "expression_statement":
            assert commonjs_export(outliner, child, {}, 0) is None, kind


def test_the_prechecks_skip_only_what_the_readers_refuse_on_the_golden_sources() -> None:
    sources = [(GOLDEN / "inventory.js", JAVASCRIPT), (GOLDEN / "registry.cjs", JAVASCRIPT)]
    sources += [(GOLDEN / "shapes.ts", TYPESCRIPT), (GOLDEN / "panel.tsx", TYPESCRIPT)]
    for path, spec in sources:
        readers_agree(path.read_bytes(), spec)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=8), st.sampled_from([JAVASCRIPT, TYPESCRIPT]))
def test_the_prechecks_skip_only_what_the_readers_refuse(statements: list[str], spec: LanguageSpec) -> None:
    readers_agree("\n".join(statements).encode(), spec)


def test_the_readers_do_accept_their_own_kinds() -> None:
    """A control: each reader finds something in a statement of its kind, so the tests above can fail."""
    data = b'const a = require("a");\nexports.run = () => 1;\ndeclare global { interface W {} }\n'
    tree: tree_sitter.Tree = parser("typescript").parse(data)
    outliner = Outliner(data, TYPESCRIPT, StructureTreeSitterOptions(), 96_000)
    required, exported, declared = tree.root_node.named_children
    assert commonjs_require(outliner, required, 0) is not None and required.type in _REQUIRE_KINDS
    assert commonjs_export(outliner, exported, {}, 0) is not None and exported.type == "expression_statement"
    assert global_block(declared) is not None and declared.type == "ambient_declaration"
