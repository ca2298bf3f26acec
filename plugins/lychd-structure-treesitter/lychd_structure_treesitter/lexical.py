"""A lexical outline for source the grammar cannot parse: declarations found by their keywords.

A valid file the grammar still rejects (TypeScript's generic call signature ``<P>(...)``
after a line without a semicolon, say) would otherwise be unavailable and silently lost
from a ranked context. When the grammar's error nodes cover only a small share of the
file (so it is this language, with a construct the grammar misreads), the file is
outlined lexically instead: comments and strings are skipped, brackets counted, and
every line at the top level that starts with a declaration keyword is listed, with the
member signatures of the containers among them. The outline says so in its first line
and declares it as an omission (``lexical-outline``); its facts have the usual shape
(``outline: "lexical"``), so coarser views and the symbol graph read it as any other.
"""

from __future__ import annotations

import re
from typing import Any

import tree_sitter

from lychd_core.blocks import Omission
from lychd_structure_treesitter.languages import LanguageSpec
from lychd_structure_treesitter.symbols import symbols_fact

LEXICAL_VERSION = "lexical 1"
"""Part of the profiles' ``parser_version``: a file unavailable before may now have an outline."""
MAX_ERROR_SHARE = 4
"""The lexical route is taken when error nodes cover at most 1/MAX_ERROR_SHARE of the bytes."""

_JS_DECL = (
    r"(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(function\*?|class|interface|type|enum|const|let|var|namespace|module)\s+([A-Za-z_$][\w$]*)"
)
_DECLARATIONS = {
    "javascript": _JS_DECL,
    "typescript": _JS_DECL,
    "tsx": _JS_DECL,
    "go": r"(func)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|(type|var|const)\s+([A-Za-z_]\w*)",
    "rust": (
        r"(?:pub(?:\([^)]*\))?\s+)?(?:(?:unsafe|async|default|extern\s+\"[^\"]*\")\s+)*"
        r"(fn|struct|enum|trait|impl|mod|type|const|static|union|macro_rules!)\s*(?:<[^>]*>\s*)?([A-Za-z_]\w*)"
    ),
    "java": (
        r"(?:@\w+\s+)*(?:(?:public|private|protected|static|final|abstract|sealed|non-sealed|strictfp)\s+)*"
        r"(class|interface|enum|record|@interface)\s+([A-Za-z_]\w*)"
    ),
}
_IMPORTS = {
    "javascript": r"import\b|export\s.*\bfrom\b",
    "typescript": r"import\b|export\s.*\bfrom\b",
    "tsx": r"import\b|export\s.*\bfrom\b",
    "go": r"import\b",
    "rust": r"(?:pub(?:\([^)]*\))?\s+)?use\b",
    "java": r"import\b",
}
_HEADERS = {"go": r"package\b", "java": r"package\b"}
_KINDS = {"function*": "function", "func": "function", "fn": "function", "let": "variable", "var": "variable"}
_KINDS |= {"const": "constant", "mod": "module", "macro_rules!": "macro", "@interface": "annotation"}
_CONTAINERS = frozenset({"class", "interface", "enum", "namespace", "module", "trait", "impl", "struct", "record"})
_MEMBER = re.compile(r"(?:[\w$@]+\s+)*?(?:([A-Za-z_$][\w$]*)\s*)?(?:<[^>]*>\s*)?\(")
"""A member signature: modifiers, a name (none for a call signature), type parameters, then ``(``."""
_NOT_MEMBERS = frozenset({"if", "for", "while", "switch", "catch", "return", "new", "throw", "await", "match"})
_SKIPPED = {
    "rust": re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\\n])'", re.DOTALL),
    "go": re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|`[^`]*`|'(?:\\.|[^'\\\n])+'", re.DOTALL),
    "java": re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])+'", re.DOTALL),
}
_JS_SKIPPED = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`", re.DOTALL)


def error_share(root: tree_sitter.Node) -> tuple[int, int]:
    """Bytes inside the outermost ERROR nodes, and how many MISSING tokens the grammar inserted."""
    covered = missing = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error:
            covered += node.end_byte - node.start_byte
        elif node.is_missing:
            missing += 1
        elif node.has_error:
            stack.extend(node.children)
    return covered, missing


def recoverable(data: bytes, root: tree_sitter.Node) -> bool:
    """Whether the errors are local: error nodes cover a small share of a non-empty file."""
    covered, _ = error_share(root)
    return bool(data.strip()) and covered * MAX_ERROR_SHARE <= len(data)


def _masked(text: str, language: str) -> str:
    """``text`` with comments and strings blanked (newlines kept), so brackets can be counted."""
    pattern = _SKIPPED.get(language, _JS_SKIPPED)
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _collapsed(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 2].rstrip() + " …"


def lexical_facts(data: bytes, spec: LanguageSpec, reason: str, limit: int) -> dict[str, Any]:
    """The facts of a lexical outline of ``data`` (same shape as the grammar's, ``outline: "lexical"``)."""
    text = data.decode("utf-8")
    raw_lines = text.splitlines()
    masked = _masked(text, spec.name).splitlines()
    declaration = re.compile(_DECLARATIONS[spec.name])
    imports_re, header_re = re.compile(_IMPORTS[spec.name]), re.compile(_HEADERS.get(spec.name, r"(?!)"))
    headers: list[dict[str, Any]] = []
    imports: list[dict[str, Any]] = []
    definitions: list[dict[str, Any]] = []
    container: dict[str, Any] | None = None
    depth = 0
    for number, (line, bare) in enumerate(zip(raw_lines, masked, strict=False), start=1):
        stripped, code = line.strip(), bare.strip()
        if code and depth == 0:
            fact = _top_level(code, stripped, number, declaration, imports_re, header_re, limit)
            if fact is not None:
                kind, entry = fact
                (headers if kind == "header" else imports if kind == "import" else definitions).append(entry)
                container = entry if entry.get("kind") in _CONTAINERS and "{" in code else None
        elif code and depth == 1 and container is not None:
            member = _member(code, stripped, number, limit)
            if member is not None:
                container["members"].append(member)
                container["body"] = "members"
        depth = max(0, depth + bare.count("{") - bare.count("}"))
        if container is not None:
            container["end_line"] = number
        if depth == 0:
            container = None
    facts: dict[str, Any] = {"format": "structure.treesitter/1", "language": spec.name, "outline": "lexical"}
    facts |= {"reason": reason, "headers": headers, "imports": imports, "definitions": definitions}
    facts["symbols"] = symbols_fact(data, spec, definitions)
    return facts


def _top_level(
    code: str,
    line: str,
    number: int,
    declaration: re.Pattern[str],
    imports_re: re.Pattern[str],
    header_re: re.Pattern[str],
    limit: int,
) -> tuple[str, dict[str, Any]] | None:
    if header_re.match(code):
        return "header", {"line": number, "text": _collapsed(line, limit)}
    if imports_re.match(code):
        module = re.search(r"[\"'`]([^\"'`]+)[\"'`]", line)
        words = code.rstrip(";").split()
        target = module.group(1) if module else (words[-1] if words else "")
        return "import", {"line": number, "text": _collapsed(line, limit), "module": target}
    found = declaration.match(code)
    if found is None:
        return None
    groups = [g for g in found.groups() if g]
    keyword, name = groups[0], groups[1]
    kind = _KINDS.get(keyword, keyword)
    signature = line.split("{", 1)[0].rstrip() if "{" in code else line
    entry = {"kind": kind, "name": name, "line": number, "end_line": number}
    entry |= {"signature": _collapsed(signature, limit), "body": "elided" if "{" in code else "none", "members": []}
    return "definition", entry


def _member(code: str, line: str, number: int, limit: int) -> dict[str, Any] | None:
    found = _MEMBER.match(code)
    if found is None or (found.group(1) or "") in _NOT_MEMBERS:
        return None
    signature = line.split("{", 1)[0].rstrip() if "{" in code else line
    return {
        "kind": "method",
        "name": found.group(1),
        "line": number,
        "end_line": number,
        "signature": _collapsed(signature.rstrip(";,"), limit),
        "body": "elided" if "{" in code else "none",
    }


def lexical_omission(reason: str) -> Omission:
    return Omission(
        kind="lexical-outline",
        reason=f"{reason}: a lexical outline stands in (declarations found by their keywords, not parsed; "
        "bodies, docs and nested declarations omitted)",
    )
