"""What each language's grammar calls its imports, declarations and containers.

Grammars come from their PyPI wheels (compiled, shipped in the wheel); nothing is
downloaded or compiled at run time. The tables name tree-sitter node types.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from importlib import import_module
from importlib.metadata import version

import tree_sitter

from lychd_structure_treesitter.keywords import GO_KEYWORDS, JAVA_KEYWORDS, JS_KEYWORDS, RUST_KEYWORDS

_JS_DECLARATIONS = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "function_signature",
        "module",
        "internal_module",
    }
)


def _binding(module: str, function: str) -> Callable[[], object]:
    """A grammar wheel's language function, its module imported on the first call.

    Every ``lychd`` command registers these profiles; a tree with no file of a language
    loads no grammar (issue 30, ``benchmarks/bench_cold_assemble.py``).
    """

    def grammar() -> object:
        language_of: Callable[[], object] = getattr(import_module(module), function)
        return language_of()

    return grammar


@cache
def _version(distribution: str) -> str:
    """One metadata read per distribution, not one per language that shares it."""
    return version(distribution)


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """One language: its grammar, and how its top level is read."""

    name: str
    grammar: Callable[[], object]
    grammar_package: str
    imports: frozenset[str]
    headers: frozenset[str]
    wrappers: frozenset[str]
    """Nodes that wrap one declaration (``export``, ``declare``, a namespace statement)."""
    declarations: frozenset[str]
    variables: dict[str, str]
    """A node declaring several names -> the node type of one of them (``const a = 1, b = 2``)."""
    containers: frozenset[str]
    """Body node types whose children are members (class bodies, impl blocks, struct fields)."""
    scopes: frozenset[str]
    """Declarations whose body holds top-level-like declarations (namespaces, Rust modules)."""
    doc_style: str
    keywords: frozenset[str]

    @property
    def parser_version(self) -> str:
        return f"tree-sitter {_version('tree-sitter')}; {self.grammar_package} {_version(self.grammar_package)}"


JS_LIKE_CONTAINERS = frozenset({"class_body", "interface_body", "object_type", "enum_body"})

JAVASCRIPT = LanguageSpec(
    name="javascript",
    grammar=_binding("tree_sitter_javascript", "language"),
    grammar_package="tree-sitter-javascript",
    imports=frozenset({"import_statement"}),
    headers=frozenset(),
    wrappers=frozenset({"export_statement"}),
    declarations=_JS_DECLARATIONS,
    variables={"lexical_declaration": "variable_declarator", "variable_declaration": "variable_declarator"},
    containers=JS_LIKE_CONTAINERS,
    scopes=frozenset(),
    doc_style="jsdoc",
    keywords=JS_KEYWORDS,
)
TYPESCRIPT = LanguageSpec(
    name="typescript",
    grammar=_binding("tree_sitter_typescript", "language_typescript"),
    grammar_package="tree-sitter-typescript",
    imports=frozenset({"import_statement", "import_alias"}),
    headers=frozenset(),
    wrappers=frozenset({"export_statement", "ambient_declaration", "expression_statement"}),
    declarations=_JS_DECLARATIONS,
    variables={"lexical_declaration": "variable_declarator", "variable_declaration": "variable_declarator"},
    containers=JS_LIKE_CONTAINERS,
    scopes=frozenset({"module", "internal_module"}),
    doc_style="jsdoc",
    keywords=JS_KEYWORDS,
)
TSX = replace(TYPESCRIPT, name="tsx", grammar=_binding("tree_sitter_typescript", "language_tsx"))
GO = LanguageSpec(
    name="go",
    grammar=_binding("tree_sitter_go", "language"),
    grammar_package="tree-sitter-go",
    imports=frozenset({"import_declaration"}),
    headers=frozenset({"package_clause"}),
    wrappers=frozenset(),
    declarations=frozenset({"function_declaration", "method_declaration"}),
    variables={"type_declaration": "", "const_declaration": "const_spec", "var_declaration": "var_spec"},
    containers=frozenset({"field_declaration_list", "interface_type"}),
    scopes=frozenset(),
    doc_style="line",
    keywords=GO_KEYWORDS,
)
RUST = LanguageSpec(
    name="rust",
    grammar=_binding("tree_sitter_rust", "language"),
    grammar_package="tree-sitter-rust",
    imports=frozenset({"use_declaration", "extern_crate_declaration"}),
    headers=frozenset(),
    wrappers=frozenset(),
    declarations=frozenset(
        {
            "function_item",
            "function_signature_item",
            "struct_item",
            "enum_item",
            "union_item",
            "trait_item",
            "impl_item",
            "type_item",
            "const_item",
            "static_item",
            "mod_item",
            "macro_definition",
        }
    ),
    variables={},
    containers=frozenset({"declaration_list", "field_declaration_list", "enum_variant_list"}),
    scopes=frozenset({"mod_item"}),
    doc_style="rust",
    keywords=RUST_KEYWORDS,
)
JAVA = LanguageSpec(
    name="java",
    grammar=_binding("tree_sitter_java", "language"),
    grammar_package="tree-sitter-java",
    imports=frozenset({"import_declaration"}),
    headers=frozenset({"package_declaration"}),
    wrappers=frozenset(),
    declarations=frozenset(
        {
            "class_declaration",
            "interface_declaration",
            "enum_declaration",
            "record_declaration",
            "annotation_type_declaration",
            "method_declaration",  # the grammar accepts top-level methods (snippets)
        }
    ),
    variables={},
    containers=frozenset(
        {"class_body", "interface_body", "enum_body", "enum_body_declarations", "annotation_type_body"}
    ),
    scopes=frozenset(),
    doc_style="jsdoc",
    keywords=JAVA_KEYWORDS,
)

LANGUAGES = {spec.name: spec for spec in (JAVASCRIPT, TYPESCRIPT, TSX, GO, RUST, JAVA)}

KINDS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "function_signature": "function",
    "function_item": "function",
    "function_signature_item": "function",
    "method_declaration": "method",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "record_declaration": "record",
    "annotation_type_declaration": "annotation",
    "module": "module",
    "internal_module": "namespace",
    "mod_item": "module",
    "struct_item": "struct",
    "enum_item": "enum",
    "union_item": "union",
    "trait_item": "trait",
    "impl_item": "impl",
    "type_item": "type",
    "const_item": "constant",
    "static_item": "static",
    "macro_definition": "macro",
    "type_spec": "type",
    "type_alias": "type",
    "const_spec": "constant",
    "var_spec": "variable",
}
"""A declaration node type -> the outline's ``kind`` (a type not listed is its own kind)."""


@cache
def language(name: str) -> tree_sitter.Language:
    return tree_sitter.Language(LANGUAGES[name].grammar())


FIELDS = ("body", "name", "declarator", "value", "type")


@cache
def field_ids(name: str) -> tuple[int | None, int | None, int | None, int | None, int | None]:
    """The grammar's ids of :data:`FIELDS` (None where it has no such field): by id, a lookup skips a name search."""
    body, name_, declarator, value, type_ = (language(name).field_id_for_name(field) for field in FIELDS)
    return body, name_, declarator, value, type_


_PARSERS = threading.local()


def parser(name: str) -> tree_sitter.Parser:
    """This thread's parser for ``name`` (a parser holds no state between parses)."""
    parsers: dict[str, tree_sitter.Parser] | None = getattr(_PARSERS, "by_name", None)
    if parsers is None:
        parsers = _PARSERS.by_name = {}
    found = parsers.get(name)
    if found is None:
        found = parsers[name] = tree_sitter.Parser(language(name))
    return found
