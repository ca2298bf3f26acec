"""Coarser views of a tree-sitter outline, rendered from its facts (no parsing).

The same resolutions ``structure.python`` offers, for every tree-sitter language:

- ``signatures``: every outlined declaration's signature, nested as in the outline, with
  no docs, imports, headers, attributes, top-level constants and variables, fields,
  properties or enum variants (members that are not callable and hold no members);
- ``names``: one line per top-level declaration, ``kind name``, with the members of a
  container shown where their names share a term with the query.

``signatures`` keeps the ``// L<n>`` source lines when the facts have them.
"""

from __future__ import annotations

from typing import Any

from lychd_core.ranking.terms import word_terms

INDENT = "    "
_VALUES = frozenset({"variable", "constant", "static"})
"""Top-level kinds a signatures view leaves out (as ``structure.python`` leaves out assigned names)."""
_CALLABLE = ("function", "method", "constructor")


def resolutions(facts: object, query_terms: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """``(name, text)`` from finer to coarser; empty when the facts have no definitions."""
    if not isinstance(facts, dict) or not isinstance(facts.get("definitions"), list) or not facts["definitions"]:
        return ()
    definitions: list[dict[str, Any]] = [d for d in facts["definitions"] if isinstance(d, dict)]
    found: list[tuple[str, str]] = []
    lines: list[str] = []
    for definition in definitions:
        if definition.get("kind") not in _VALUES:
            _signature(lines, definition, 0)
    if lines:
        found.append(("signatures", "\n".join(lines)))
    names = [_names_line(d, query_terms) for d in definitions if isinstance(d.get("name"), str) and d["name"]]
    if names:
        found.append(("names", "\n".join(names)))
    return tuple(found)


def _line(fact: dict[str, Any]) -> str:
    return f"  // L{fact['line']}" if isinstance(fact.get("line"), int) else ""


def _kept_member(fact: dict[str, Any]) -> bool:
    """Callables and containers holding one; fields, properties and variants are left out."""
    kind = str(fact.get("kind", ""))
    if any(word in kind for word in _CALLABLE):
        return True
    return any(isinstance(m, dict) and _kept_member(m) for m in fact.get("members") or ())


def _signature(lines: list[str], fact: dict[str, Any], depth: int) -> None:
    lines.append(f"{INDENT * depth}{fact.get('signature', '')}{_line(fact)}")
    for member in fact.get("members") or ():
        if isinstance(member, dict) and _kept_member(member):
            _signature(lines, member, depth + 1)


def _matches(name: str, query_terms: frozenset[str]) -> bool:
    return any(term in query_terms for term in word_terms(name))


def _names_line(fact: dict[str, Any], query_terms: frozenset[str]) -> str:
    members = [m for m in fact.get("members") or () if isinstance(m, dict) and isinstance(m.get("name"), str)]
    matched = [m["name"] for m in members if _matches(m["name"], query_terms)]
    head = f"{fact.get('kind', 'item')} {fact['name']}"
    return head + (f": {', '.join(dict.fromkeys(matched))}" if matched else "")
