"""Outline facts -> stable, stub-like text with the source line of every text line."""

from __future__ import annotations

import json
from typing import Any

from lychd_structure_python.options import StructurePythonOptions

INDENT = "    "
# Characters str.splitlines() breaks at besides \n and \r: escaped, so one outline line is one line.
_LINE_BREAKING = {
    code: f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}" for code in (11, 12, 28, 29, 30, 133, 0x2028, 0x2029)
}
_LINE_BREAKING.update({10: "\\n", 13: "\\r"})


class _Writer:
    def __init__(self, numbered: bool) -> None:
        self.numbered = numbered
        self.lines: list[str] = []
        self.sources: list[int] = []

    def add(self, text: str, source_line: int, note: str = "", marker: int | None = None) -> None:
        """One line ending in a ``# L<n>`` comment (``marker`` overrides the line it names)."""
        number = f"L{source_line if marker is None else marker}" if self.numbered else ""
        comment = ", ".join(part for part in (number, note) if part)
        self.raw(f"{text}  # {comment}" if comment else text, source_line)

    def raw(self, text: str, source_line: int) -> None:
        self.lines.append(text.translate(_LINE_BREAKING))
        self.sources.append(source_line)


def render(facts: dict[str, Any], options: StructurePythonOptions) -> tuple[str, tuple[int, ...]]:
    """Outline text and its line map (the source line of each text line)."""
    out = _Writer(options.include_line_numbers)
    docstring = facts.get("docstring")
    if docstring and docstring["text"]:
        _docstring(out, docstring)
    for fact in facts.get("imports", ()):
        out.add(_import_text(fact), fact["line"], "conditional" if fact["conditional"] else "")
    public = facts.get("public")
    if public is not None:
        _public(out, public)
    for definition in facts["definitions"]:
        _definition(out, definition, 0)
    return "\n".join(out.lines), tuple(out.sources)


def public_facts(facts: dict[str, Any], options: StructurePythonOptions) -> dict[str, Any]:
    """The facts as published: the docstring's line list dropped, lines dropped unless selected."""
    published = dict(facts)
    if published.get("docstring"):
        published["docstring"] = {k: v for k, v in published["docstring"].items() if k != "lines"}
    if options.include_line_numbers:
        return published

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items() if key != "line"}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    stripped: dict[str, Any] = strip(published)
    return stripped


def _docstring(out: _Writer, docstring: dict[str, Any]) -> None:
    lines = docstring["text"].replace('"""', '\\"\\"\\"').split("\n")
    lines[0] = '"""' + lines[0]
    lines[-1] = lines[-1] + '"""'
    sources = docstring["lines"]
    for line, source_line in zip(lines[:-1], sources, strict=False):
        out.raw(line, source_line)
    out.add(lines[-1], sources[-1], marker=docstring["line"])


def _import_text(fact: dict[str, Any]) -> str:
    names = ", ".join(n["name"] if n["asname"] is None else f"{n['name']} as {n['asname']}" for n in fact["names"])
    if fact["statement"] == "import":
        return f"import {names}"
    module = "." * fact["level"] + (fact["module"] or "")
    return f"from {module} import {names}"


def _public(out: _Writer, public: dict[str, Any]) -> None:
    names = public["names"]
    if public["source"] == "__all__":
        out.add(f"__all__ = {json.dumps(names, ensure_ascii=False)}", public["line"])
        return
    listed = ", ".join(names) if names else "(none)"
    if public["line"] is None:
        out.raw(f"# public names (no __all__): {listed}", 1)  # a summary: no line of its own to name
    else:
        out.add(f"# public names (__all__ is computed): {listed}", public["line"])


def _definition(out: _Writer, fact: dict[str, Any], depth: int) -> None:
    pad = INDENT * depth
    if fact["kind"] == "attribute":
        default = "" if fact["default"] is None else f" = {fact['default']}"
        out.add(f"{pad}{fact['name']}: {fact['annotation']}{default}", fact["line"])
        return
    for decorator in fact.get("decorators", ()):
        out.add(pad + decorator["text"], decorator["line"])
    type_parameters = fact["type_parameters"] or ""
    if fact["kind"] == "function":
        prefix = "async def" if fact["async"] else "def"
        if "parameters" in fact:
            returns = "" if fact["returns"] is None else f" -> {fact['returns']}"
            signature = f"({_parameters(fact['parameters'])}){returns}"
        else:
            signature = "(...)"
        out.add(f"{pad}{prefix} {fact['name']}{type_parameters}{signature}: ...", fact["line"])
        return
    arguments = [*fact.get("bases", ()), *fact.get("keywords", ())]
    bases = f"({', '.join(arguments)})" if arguments else ""
    members = fact.get("members", [])
    ending = ":" if members else ": ..."
    out.add(f"{pad}class {fact['name']}{type_parameters}{bases}{ending}", fact["line"])
    for member in members:
        _definition(out, member, depth + 1)


def _parameters(parameters: list[dict[str, Any]]) -> str:
    parts: list[str] = []
    kinds = [p["kind"] for p in parameters]
    for index, param in enumerate(parameters):
        kind = param["kind"]
        if kind == "keyword_only" and "var_positional" not in kinds and kinds.index("keyword_only") == index:
            parts.append("*")
        text = param["name"]
        if param["annotation"] is not None:
            text += f": {param['annotation']}"
        if param["default"] is not None:
            text += f" = {param['default']}" if param["annotation"] is not None else f"={param['default']}"
        parts.append({"var_positional": "*", "var_keyword": "**"}.get(kind, "") + text)
        if kind == "positional_only" and (index + 1 == len(kinds) or kinds[index + 1] != "positional_only"):
            parts.append("/")
    return ", ".join(parts)
