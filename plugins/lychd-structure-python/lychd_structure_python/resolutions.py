"""Coarser resolutions of an outline, rendered from its facts (no parsing).

- ``signatures``: every outlined class and function with its parameter names, no
  docstring, imports, decorators, annotations, defaults or attributes;
- ``names``: the top-level names only, with the members of a class shown where their
  names share a term with the query.
Both keep the ``# L<n>`` source lines when the facts have them.
"""

from __future__ import annotations

from typing import Any

from lychd_core.ranking.terms import word_terms

INDENT = "    "
_PREFIX = {"var_positional": "*", "var_keyword": "**"}


def resolutions(facts: object, query_terms: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """``(name, text)`` from finer to coarser; empty when the facts have no definitions."""
    if not isinstance(facts, dict) or not isinstance(facts.get("definitions"), list) or not facts["definitions"]:
        return ()
    definitions: list[dict[str, Any]] = facts["definitions"]
    found: list[tuple[str, str]] = []
    lines: list[str] = []
    for definition in definitions:
        _signature(lines, definition, 0)
    if lines:
        found.append(("signatures", "\n".join(lines)))
    names = [_names_line(definition, query_terms) for definition in definitions if definition["kind"] != "attribute"]
    if names:
        found.append(("names", "\n".join(names)))
    return tuple(found)


def _line(fact: dict[str, Any]) -> str:
    return f"  # L{fact['line']}" if isinstance(fact.get("line"), int) else ""


def _signature(lines: list[str], fact: dict[str, Any], depth: int) -> None:
    pad = INDENT * depth
    if fact["kind"] == "attribute":
        return
    if fact["kind"] == "function":
        prefix = "async def" if fact.get("async") else "def"
        params = fact.get("parameters")
        shown = "..." if params is None else ", ".join(_PREFIX.get(p["kind"], "") + p["name"] for p in params)
        lines.append(f"{pad}{prefix} {fact['name']}({shown}){_line(fact)}")
        return
    members = [m for m in fact.get("members", ()) if m["kind"] != "attribute"]
    lines.append(f"{pad}class {fact['name']}:{'' if members else ' ...'}{_line(fact)}")
    for member in members:
        _signature(lines, member, depth + 1)


def _matches(name: str, query_terms: frozenset[str]) -> bool:
    return any(term in query_terms for term in word_terms(name))


def _names_line(fact: dict[str, Any], query_terms: frozenset[str]) -> str:
    keyword = "class" if fact["kind"] == "class" else "def"
    matched = [m["name"] for m in fact.get("members", ()) if _matches(m["name"], query_terms)]
    return f"{keyword} {fact['name']}" + (f": {', '.join(matched)}" if matched else "")
