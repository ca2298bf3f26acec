"""Outline facts -> stable text with the source line of every text line."""

from __future__ import annotations

from typing import Any

from lychd_structure_treesitter.options import StructureTreeSitterOptions

INDENT = "    "
_DOC_PREFIX = {"rust": "///"}
_FILE_DOC_PREFIX = {"rust": "//!"}


class _Writer:
    def __init__(self, numbered: bool) -> None:
        self.numbered = numbered
        self.lines: list[str] = []
        self.sources: list[int] = []

    def add(self, text: str, line: int) -> None:
        self.lines.append(f"{text}  // L{line}" if self.numbered else text)
        self.sources.append(line)

    def raw(self, text: str, line: int) -> None:
        self.lines.append(text)
        self.sources.append(line)


def render(facts: dict[str, Any], options: StructureTreeSitterOptions) -> tuple[str, tuple[int, ...]]:
    """Outline text and its line map (the source line of each text line)."""
    out = _Writer(options.include_line_numbers)
    doc_prefix = _DOC_PREFIX.get(facts["language"], "//")
    file_doc = facts.get("doc")
    if file_doc:  # Go's package doc, Rust's //! crate or file-module doc
        marker = _FILE_DOC_PREFIX.get(facts["language"], "//")
        for offset, line in enumerate(file_doc["lines"]):
            out.raw(f"{marker} {line}".rstrip(), file_doc["line"] + offset)
    for header in facts["headers"]:
        out.add(header["text"], header["line"])
    for fact in facts.get("imports", ()):
        out.add(fact["text"], fact["line"])
    for definition in facts["definitions"]:
        _definition(out, definition, 0, doc_prefix)
    return "\n".join(out.lines), tuple(out.sources)


def _definition(out: _Writer, fact: dict[str, Any], depth: int, doc_prefix: str) -> None:
    pad = INDENT * depth
    doc = fact.get("doc")
    if doc:
        for offset, line in enumerate(doc["lines"]):
            out.raw(f"{pad}{doc_prefix} {line}".rstrip(), doc["line"] + offset)
    for attribute in fact.get("attributes", ()):
        out.add(pad + attribute["text"], attribute["line"])
    members = fact.get("members")
    if fact["body"] == "elided" or (fact["body"] == "members" and not members):
        out.add(f"{pad}{fact['signature']} {{ … }}", fact["line"])
        return
    if not members:
        out.add(pad + fact["signature"], fact["line"])
        return
    out.add(f"{pad}{fact['signature']} {{", fact["line"])
    for member in members:
        _definition(out, member, depth + 1, doc_prefix)
    out.raw(pad + "}", fact["end_line"])


def public_facts(facts: dict[str, Any], options: StructureTreeSitterOptions) -> dict[str, Any]:
    """The facts as published: line numbers dropped unless the options select them."""
    if options.include_line_numbers:
        return facts

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items() if key not in ("line", "end_line")}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    stripped: dict[str, Any] = strip(facts)
    return stripped
