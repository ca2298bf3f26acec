"""Source bytes -> outline facts: one tree-sitter parse, then a walk over declarations only.

The walk never descends into function bodies or expressions, and nesting of containers
(classes, namespaces, modules) is followed to :data:`MAX_DEPTH` only, so its cost
follows the number of declarations, not the size or depth of the code; deeply nested
input cannot exhaust the Python stack.
"""

from __future__ import annotations

from typing import Any

import tree_sitter

from lychd_structure_treesitter.languages import KINDS, LanguageSpec, field_ids, language, parser
from lychd_structure_treesitter.lexical import recoverable
from lychd_structure_treesitter.module_level import (
    MAX_DEPTH,
    commonjs_export,
    commonjs_require,
    global_block,
    global_definition,
    inner_doc,
)
from lychd_structure_treesitter.options import StructureTreeSitterOptions
from lychd_structure_treesitter.symbols import symbols_fact

FORMAT = "structure.treesitter/1"
SHORT_VALUE = 40
_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
_PREFIXES = _COMMENTS | {"attribute_item"}
_NOT_MEMBERS = _COMMENTS | {"attribute_item", "decorator"}
_SPECS = frozenset({"variable_declarator", "const_spec", "var_spec", "type_spec", "type_alias"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_REQUIRE_KINDS = frozenset({"expression_statement", "lexical_declaration", "variable_declaration"})
"""The only statements ``commonjs_require`` can read as imports (checked here to skip the call)."""
_FUNCTION_BODIES = frozenset({"statement_block", "block", "constructor_body"})


def _opening(body: tree_sitter.Node, kind: str) -> int:
    """Where a body's text starts: its ``{`` (Go's ``interface {`` keeps its keyword)."""
    if kind == "interface_type":
        return next((child.start_byte for child in body.children if child.type == "{"), body.start_byte)
    return body.start_byte


class ParseFailure(Exception):
    """The grammar reports a syntax error; the message is the unavailable reason.

    ``local``: the error nodes cover a small share of the file (a construct the grammar
    misreads, not another language), so a lexical outline may stand in."""

    def __init__(self, message: str, *, local: bool = False) -> None:
        super().__init__(message)
        self.local = local


class OutlineTooLarge(Exception):
    """The outline would exceed the character bound; found during the walk, so it stops early."""


def first_error(root: tree_sitter.Node) -> tree_sitter.Node | None:
    """The first ERROR or MISSING node, descending only into subtrees that hold one."""
    node = root
    while True:
        if node.is_error or node.is_missing:
            return node
        for child in node.children:
            if child.has_error or child.is_missing:
                node = child
                break
        else:
            return node if node is not root else None


class Outliner:
    """Builds the facts of one parsed source."""

    def __init__(self, data: bytes, spec: LanguageSpec, options: StructureTreeSitterOptions, max_chars: int) -> None:
        self.data = data
        self.spec = spec
        self.options = options
        self.budget = max_chars  # characters of signatures still allowed; the text is at least that long
        self.headers: list[dict[str, Any]] = []
        self.imports: list[dict[str, Any]] = []
        self.file_doc: dict[str, Any] | None = None
        self._limit = options.max_signature_chars
        self._fields = field_ids(spec.name)
        self._declaration_field = language(spec.name).field_id_for_name("declaration")

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def signature(self, start: int, end: int) -> str:
        return self.collapsed(self.data[start:end].decode("utf-8", "replace"))

    def collapsed(self, text: str) -> str:
        """``text`` on one line, cut to the signature limit, and paid for from the outline's budget."""
        flat = " ".join(text.split())
        if len(flat) > self._limit:
            flat = flat[: self._limit - 2].rstrip() + " …"
        self.budget -= len(flat)
        if self.budget < 0:
            raise OutlineTooLarge(flat)
        return flat

    def short(self, value: tree_sitter.Node) -> bool:
        return self._short(value)

    def doc_of(self, comments: list[tree_sitter.Node], *, inner: bool = False) -> dict[str, Any]:
        """The doc of ``comments``; ``inner`` strips Rust's ``//!`` and ``/*!`` markers."""
        return self._doc(comments, inner=inner)

    def _short(self, value: tree_sitter.Node) -> bool:
        """A value short enough to show in full (a number, a name, a short string)."""
        return value.end_byte - value.start_byte <= SHORT_VALUE and "\n" not in self.text(*value.byte_range)

    # --- scopes ------------------------------------------------------------------

    def scope(self, node: tree_sitter.Node, depth: int) -> list[dict[str, Any]]:
        """Definitions declared directly in ``node`` (a file, namespace or module body)."""
        definitions: list[dict[str, Any]] = []
        children = node.named_children
        for index, child in enumerate(children):
            kind = child.type
            if kind in _COMMENTS or kind == "attribute_item":
                continue
            if kind in self.spec.headers:
                self.headers.append({"line": child.start_point.row + 1, "text": self.signature(*child.byte_range)})
                if depth == 0 and self.spec.name == "go":  # Go's package doc sits above the package clause
                    self.file_doc = self._prefix(children, index).get("doc") or self.file_doc
                continue
            if kind in self.spec.imports:
                self._import(child)
                continue
            required = commonjs_require(self, child, depth) if kind in _REQUIRE_KINDS else None
            if required is not None:
                self.imports.extend(required)
                continue
            block = global_block(child) if kind == "ambient_declaration" else None
            if block is not None:
                definitions.append(global_definition(self, child, block, self._prefix(children, index), depth))
                continue
            unwrapped = self._unwrap(child, kind)
            if unwrapped is None:
                if kind == "export_statement" and child.child_by_field_name("source") is not None:
                    self._import(child)
                exported = commonjs_export(self, child, {}, depth) if kind == "expression_statement" else None
                if exported is not None:
                    exported.update(self._prefix(children, index))
                    definitions.append(exported)
                continue
            declaration, declared = unwrapped
            prefix = self._prefix(children, index)
            if declared in self.spec.variables:
                definitions.extend(self._variables(declaration, child, prefix))
            else:
                definitions.append(self._definition(declaration, child, prefix, depth, declared))
        return definitions

    def _unwrap(self, node: tree_sitter.Node, kind: str) -> tuple[tree_sitter.Node, str] | None:
        """The declaration ``node`` (of type ``kind``) wraps, with its type; None for any other statement."""
        spec, field = self.spec, self._declaration_field
        for _ in range(4):  # export declare namespace ...: wrappers nest a few levels at most
            if kind in spec.declarations or kind in spec.variables:
                return node, kind
            if kind not in spec.wrappers:
                return None
            inner = None if field is None else node.child_by_field_id(field)
            if inner is None:
                named = [c for c in node.named_children if c.type not in _COMMENTS and c.type != "decorator"]
                if len(named) != 1:
                    return None
                inner = named[0]
            node, kind = inner, inner.type
        return None

    def _prefix(self, siblings: list[tree_sitter.Node], index: int) -> dict[str, Any]:
        """Doc comment and attributes directly above ``siblings[index]`` (empty parts left out)."""
        if not index or siblings[index - 1].type not in _PREFIXES:
            return {}
        attributes: list[dict[str, Any]] = []
        docs: list[tree_sitter.Node] = []
        next_row = siblings[index].start_point.row
        for position in range(index - 1, -1, -1):  # no slicing: a minified file has 10^5 siblings
            sibling = siblings[position]
            if sibling.end_point.row < next_row - 1:
                break
            if sibling.type == "attribute_item":
                attributes.append({"line": sibling.start_point.row + 1, "text": self.signature(*sibling.byte_range)})
            elif sibling.type in _COMMENTS and self._is_doc(sibling):
                docs.append(sibling)
            else:
                break
            next_row = sibling.start_point.row
        prefix: dict[str, Any] = {"attributes": attributes[::-1]} if attributes else {}
        if docs and self.options.doc_lines:
            prefix["doc"] = self._doc(docs[::-1])
        return prefix

    def _is_doc(self, comment: tree_sitter.Node) -> bool:
        head = self.data[comment.start_byte : comment.start_byte + 4]
        if self.spec.doc_style == "jsdoc":
            return head.startswith(b"/**") and not head.startswith(b"/**/")
        if self.spec.doc_style == "rust":
            return (head.startswith(b"///") and not head.startswith(b"////")) or head.startswith(b"/**")
        return head.startswith(b"//")

    def _doc(self, comments: list[tree_sitter.Node], *, inner: bool = False) -> dict[str, Any]:
        lines: list[str] = []
        for comment in comments:
            for raw in self.text(*comment.byte_range).splitlines():
                line = raw.strip()
                if inner:
                    line = line.removeprefix("//!").removeprefix("/*!")
                for marker in ("/**", "*/", "///", "//"):
                    line = line.removeprefix(marker) if marker != "*/" else line.removesuffix(marker)
                line = line.strip()
                line = line.removeprefix("*").strip() if self.spec.doc_style != "line" else line
                lines.append(line)
        while lines and not lines[0]:
            lines.pop(0)
        while lines and not lines[-1]:
            lines.pop()
        kept = lines[: self.options.doc_lines]
        if len(lines) > len(kept) and kept:
            kept[-1] = f"{kept[-1]} …"
        return {"line": comments[0].start_point.row + 1, "lines": kept}

    # --- declarations ------------------------------------------------------------

    def _import(self, node: tree_sitter.Node) -> None:
        specs = [node]
        if node.type == "import_declaration" and self.spec.name == "go":
            specs = [s for c in node.named_children for s in ([c] if c.type == "import_spec" else c.named_children)]
        for spec in specs:
            source = spec.child_by_field_name("source") or spec.child_by_field_name("path")
            source = source or spec.child_by_field_name("argument")
            if source is None:
                named = [c for c in spec.named_children if c.type not in ("modifiers", "asterisk")]
                source = named[0] if named else None
            module = "" if source is None else self.text(*source.byte_range).strip("\"'`")
            text = self.signature(*spec.byte_range)
            if spec is not node:
                text = f"import {text}"
            self.imports.append({"line": spec.start_point.row + 1, "text": text, "module": module})

    def _definition(
        self, node: tree_sitter.Node, outer: tree_sitter.Node, prefix: dict[str, Any], depth: int, kind: str = ""
    ) -> dict[str, Any]:
        kind = kind or node.type
        body_id, name_id, declarator_id, value_id, type_id = self._fields
        if kind in ("type_spec", "type_alias"):
            body = self._go_type_body(node)
        else:
            body = None if body_id is None else node.child_by_field_id(body_id)
        name_node = None if name_id is None else node.child_by_field_id(name_id)
        if name_node is None and kind == "impl_item" and type_id is not None:
            name_node = node.child_by_field_id(type_id)  # impl Display for Ledger: named by its type
        declarator = None if declarator_id is None else node.child_by_field_id(declarator_id)  # Java: int x = 1;
        if name_node is None and declarator is not None:
            name_node = declarator.child_by_field_name("name") or declarator
        body_kind = "" if body is None else body.type
        scoped = kind in self.spec.scopes
        if (
            body is not None
            and not scoped
            and body_kind not in _FUNCTION_BODIES
            and body_kind not in self.spec.containers
        ):
            body = None  # a tuple struct's fields, an enum variant's payload: part of the signature
        end = node.end_byte if body is None else _opening(body, body_kind)
        value = None  # only a bodiless declaration shows its value (a long one cut at its start)
        if body is None:
            value = None if value_id is None else node.child_by_field_id(value_id)
            if value is None and declarator is not None:
                value = declarator.child_by_field_name("value")
        long_value = value is not None and not self._short(value)
        data = self.data
        signature = self.collapsed(
            data[outer.start_byte : value.start_byte if long_value and value else end].decode("utf-8", "replace")
        )
        name = None
        if name_node is not None:
            start, stop = name_node.byte_range
            name = data[start:stop].decode("utf-8", "replace")
        fact: dict[str, Any] = {
            "kind": KINDS.get(kind, kind),
            "name": name,
            "line": outer.start_point.row + 1,
            "end_line": node.end_point.row + 1,
            "signature": f"{signature} …" if long_value else signature,
            "body": "none" if body is None else "elided",
            **prefix,
        }
        if body is not None and depth < MAX_DEPTH:
            if scoped:
                fact["body"], fact["members"] = "members", self.scope(body, depth + 1)
                inner = None if "doc" in fact else inner_doc(self, body)
                if inner is not None:  # a Rust module's //! docs document the module
                    fact["doc"] = inner
            elif body_kind in self.spec.containers:
                fact["body"] = "members"
                fact["members"] = self.members(body, depth + 1) if self.options.members == "all" else []
        return fact

    def _go_type_body(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        kind = node.child_by_field_name("type")
        if kind is None:
            return None
        if kind.type == "struct_type":
            return next((c for c in kind.named_children if c.type == "field_declaration_list"), None)
        return kind if kind.type == "interface_type" else None

    def members(self, body: tree_sitter.Node, depth: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        children = body.named_children
        kinds = [child.type for child in children]  # each .type builds a new str: once per child
        containers = self.spec.containers
        for index, child in enumerate(children):
            kind = kinds[index]
            if kind in _NOT_MEMBERS:
                continue
            if kind in containers:  # Java's enum_body_declarations
                found.extend(self.members(child, depth))
                continue
            prefix = self._prefix(children, index) if index and kinds[index - 1] in _PREFIXES else {}
            found.append(self._definition(child, child, prefix, depth, kind))
        return found

    def _variables(
        self, node: tree_sitter.Node, outer: tree_sitter.Node, prefix: dict[str, Any]
    ) -> list[dict[str, Any]]:
        specs = [s for c in node.named_children for s in ([c] if c.type in _SPECS else c.named_children)]
        specs = [s for s in specs if s.type in _SPECS]
        if not specs:
            return []
        keyword = self.text(outer.start_byte, specs[0].start_byte).replace("(", " ").strip()
        found: list[dict[str, Any]] = []
        for spec in specs:
            if spec.type in ("type_spec", "type_alias"):
                fact = self._definition(spec, spec, prefix, 1)
                fact["signature"] = f"{keyword} {fact['signature']}"
                fact["line"] = spec.start_point.row + 1 if len(specs) > 1 else fact["line"]
                found.append(fact)
                continue
            value = spec.child_by_field_name("value")
            names = [self.text(*n.byte_range) for n in spec.children_by_field_name("name")]
            kind = KINDS.get(spec.type, "constant" if keyword.startswith("const") else "variable")
            if value is not None and value.type in _FUNCTION_VALUES:
                value_body = value.child_by_field_name("body")
                end = value_body.start_byte if value_body is not None else value.end_byte
                text, kind = self.text(spec.start_byte, end), "function"
                body = "elided" if value_body is not None else "none"
            elif value is not None and not self._short(value):
                text, body = self.text(spec.start_byte, value.start_byte) + " …", "none"
            else:
                text, body = self.text(*spec.byte_range), "none"
            found.append(
                {
                    "kind": kind,
                    "name": ", ".join(names) if names else None,
                    "line": (outer if len(specs) == 1 else spec).start_point.row + 1,
                    "end_line": spec.end_point.row + 1,
                    "signature": self.collapsed(f"{keyword} {text}"),
                    "body": body,
                    **prefix,
                }
            )
        return found


def outline_facts(
    data: bytes, spec: LanguageSpec, options: StructureTreeSitterOptions, max_chars: int
) -> dict[str, Any]:
    """The facts of ``data``; raises :class:`ParseFailure` on a syntax error and
    :class:`OutlineTooLarge` as soon as the outline's signatures alone exceed ``max_chars``."""
    tree = parser(spec.name).parse(data)
    root = tree.root_node
    if root.has_error:
        error = first_error(root)
        where = "" if error is None else f" at line {error.start_point.row + 1}"
        what = "a missing token" if error is not None and error.is_missing else "a syntax error"
        raise ParseFailure(
            f"the {spec.name} grammar reports {what}{where} (not {spec.name} source?)", local=recoverable(data, root)
        )
    outliner = Outliner(data, spec, options, max_chars)
    definitions = outliner.scope(root, 0)
    facts: dict[str, Any] = {"format": FORMAT, "language": spec.name}
    doc = outliner.file_doc or inner_doc(outliner, root)
    if doc is not None and options.doc_lines:
        facts["doc"] = doc
    facts["headers"] = outliner.headers
    if options.include_imports:
        facts["imports"] = outliner.imports
    facts["definitions"] = definitions
    facts["symbols"] = symbols_fact(data, spec, definitions)
    return facts
