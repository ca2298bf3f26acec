"""What belongs to a file or module rather than one declaration: its doc, global blocks, CommonJS exports.

* Go's package doc: the ``//`` lines directly above ``package`` (read by the outliner's
  ordinary doc rule); shown before the package clause.
* Rust's inner docs: ``//!`` lines and ``/*! */`` blocks at the start of a file (the
  crate's or file module's doc) or of a ``mod { }`` body (that module's doc).
* TypeScript's ``declare global { ... }``: a scope of global declarations.
* CommonJS exports: ``module.exports = ...``, ``exports.name = ...`` and
  ``module.exports.name = ...`` at the top level of a JavaScript or TypeScript file.
* CommonJS imports: a top-level ``const x = require("m")`` (also destructured, or
  ``require("m").member``) and a bare ``require("m");`` are imports of ``m``.
"""

from __future__ import annotations

from typing import Any, Protocol

import tree_sitter

from lychd_structure_treesitter.languages import LanguageSpec
from lychd_structure_treesitter.options import StructureTreeSitterOptions

MAX_DEPTH = 6
"""How deep declarations nest in an outline (members of members ...)."""


class Outliner(Protocol):
    """What these rules read of ``outline.Outliner`` (a protocol, so neither module imports the other)."""

    data: bytes
    spec: LanguageSpec
    options: StructureTreeSitterOptions

    def text(self, start: int, end: int) -> str: ...

    def signature(self, start: int, end: int) -> str: ...

    def short(self, value: tree_sitter.Node) -> bool: ...

    def doc_of(self, comments: list[tree_sitter.Node], *, inner: bool = False) -> dict[str, Any]: ...

    def scope(self, node: tree_sitter.Node, depth: int) -> list[dict[str, Any]]: ...

    def members(self, body: tree_sitter.Node, depth: int) -> list[dict[str, Any]]: ...


_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_JS_LIKE = frozenset({"javascript", "typescript", "tsx"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_CLASS_VALUES = frozenset({"class"})
EXPORT_TARGETS = ("module.exports", "exports")
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})


def inner_doc(outliner: Outliner, scope: tree_sitter.Node) -> dict[str, Any] | None:
    """The inner doc comments (``//!``, ``/*!``) that open ``scope``, or None (Rust only)."""
    if outliner.spec.doc_style != "rust" or not outliner.options.doc_lines:
        return None
    docs: list[tree_sitter.Node] = []
    for child in scope.named_children:
        if child.type not in _COMMENTS:
            break
        head = outliner.data[child.start_byte : child.start_byte + 3]
        if head in (b"//!", b"/*!"):
            docs.append(child)
        elif docs:
            break  # an ordinary comment ends the inner doc
    return outliner.doc_of(docs, inner=True) if docs else None


def global_block(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The body of ``declare global { ... }``, or None."""
    if node.type != "ambient_declaration" or not any(child.type == "global" for child in node.children):
        return None
    return next((child for child in node.named_children if child.type == "statement_block"), None)


def global_definition(
    outliner: Outliner, node: tree_sitter.Node, body: tree_sitter.Node, prefix: dict[str, Any], depth: int
) -> dict[str, Any]:
    fact: dict[str, Any] = {
        "kind": "global",
        "name": None,
        "line": node.start_point.row + 1,
        "end_line": node.end_point.row + 1,
        "signature": outliner.signature(node.start_byte, body.start_byte),
        "body": "elided",
        **prefix,
    }
    if depth < MAX_DEPTH:
        fact["body"], fact["members"] = "members", outliner.scope(body, depth + 1)
    return fact


def commonjs_export(
    outliner: Outliner, node: tree_sitter.Node, prefix: dict[str, Any], depth: int
) -> dict[str, Any] | None:
    """A top-level CommonJS export assignment as a definition, or None for any other statement."""
    if outliner.spec.name not in _JS_LIKE or node.type != "expression_statement" or depth:
        return None
    assignment = node.named_children[0] if node.named_child_count else None
    if assignment is None or assignment.type != "assignment_expression":
        return None
    left, value = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    if left is None or value is None or left.type != "member_expression":
        return None
    target = outliner.text(*left.byte_range)
    owner, _, exported = target.rpartition(".")
    if target == "module.exports":
        name = None
    elif owner in EXPORT_TARGETS and exported.isidentifier():
        name = exported
    else:
        return None
    fact: dict[str, Any] = {
        "kind": "export",
        "name": name,
        "line": node.start_point.row + 1,
        "end_line": node.end_point.row + 1,
        **prefix,
    }
    body = value.child_by_field_name("body")
    if value.type in _FUNCTION_VALUES or value.type in _CLASS_VALUES:
        fact["kind"] = "function" if value.type in _FUNCTION_VALUES else "class"
        end = value.end_byte if body is None else body.start_byte
        fact["signature"] = outliner.signature(node.start_byte, end)
        fact["body"] = "none" if body is None else "elided"
        if body is not None and value.type in _CLASS_VALUES:
            fact["body"] = "members"
            fact["members"] = outliner.members(body, depth + 1) if outliner.options.members == "all" else []
    elif outliner.short(value):
        fact["signature"], fact["body"] = outliner.signature(node.start_byte, value.end_byte), "none"
    else:
        fact["signature"] = f"{outliner.signature(node.start_byte, value.start_byte)} …"
        fact["body"] = "none"
    return fact


def commonjs_require(outliner: Outliner, node: tree_sitter.Node, depth: int) -> list[dict[str, Any]] | None:
    """The imports of a top-level ``require("m")`` statement, or None for any other statement.

    A declaration is an import only when every one of its declarators requires a module
    (``const a = require("a"), n = 1`` stays a definition); each declarator is one import.
    """
    if outliner.spec.name not in _JS_LIKE or depth:
        return None
    if node.type == "expression_statement":
        module = _required(outliner, node.named_children[0] if node.named_child_count == 1 else None)
        if module is None:
            return None
        return [{"line": node.start_point.row + 1, "text": outliner.signature(*node.byte_range), "module": module}]
    if node.type not in _DECLARATIONS:
        return None
    declarators = [child for child in node.named_children if child.type == "variable_declarator"]
    modules = [_required(outliner, declarator.child_by_field_name("value")) for declarator in declarators]
    if not declarators or any(module is None for module in modules):
        return None
    if len(declarators) == 1:
        return [{"line": node.start_point.row + 1, "text": outliner.signature(*node.byte_range), "module": modules[0]}]
    keyword = outliner.text(node.start_byte, declarators[0].start_byte).strip()
    return [
        {
            "line": declarator.start_point.row + 1,
            "text": f"{keyword} {outliner.signature(declarator.start_byte, declarator.end_byte)}",
            "module": module,
        }
        for declarator, module in zip(declarators, modules, strict=True)
    ]


def _required(outliner: Outliner, value: tree_sitter.Node | None) -> str | None:
    """``m`` when ``value`` is ``require("m")`` or ``require("m").member`` (a literal name only)."""
    if value is not None and value.type == "member_expression":
        value = value.child_by_field_name("object")
    if value is None or value.type != "call_expression":
        return None
    function, arguments = value.child_by_field_name("function"), value.child_by_field_name("arguments")
    if function is None or function.type != "identifier" or outliner.text(*function.byte_range) != "require":
        return None
    named = [] if arguments is None else arguments.named_children
    if len(named) != 1 or named[0].type != "string":
        return None
    return outliner.text(*named[0].byte_range)[1:-1]
