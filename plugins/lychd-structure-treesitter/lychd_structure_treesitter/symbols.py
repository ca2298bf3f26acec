"""The ``symbols`` facts: the names a file defines and the identifiers it uses, as ``structure.python`` gives them."""

from __future__ import annotations

import re
from typing import Any

from lychd_structure_treesitter.languages import LanguageSpec

MAX_REFERENCES = 5_000
IDENTIFIER = re.compile(r"[^\W\d]\w*")
IDENTIFIER_BYTES = re.compile(rb"[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*")
IDENTIFIER_ASCII = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NOT_WORD = bytes(byte if byte in _WORD_BYTES else 0x20 for byte in range(256))
"""Every byte but ``[A-Za-z0-9_]`` to a space: a word with its leading digits stripped is an identifier."""
_DIGITS = "0123456789"
_NOTHING = frozenset({""})


def symbols_fact(data: bytes, spec: LanguageSpec, definitions: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"defines", "references"}`` as ``structure.python`` gives them (sorted, unique, capped)."""
    defines: set[str] = set()
    for definition in definitions:
        for fact in (definition, *definition.get("members", ())):
            name = fact.get("name")
            if isinstance(name, str) and fact.get("kind") != "impl":
                if "," not in name:  # the common case, without a call per definition
                    if name.isidentifier():
                        defines.add(name)
                else:
                    defines.update(_names(name))
    if data.isascii():  # the common case: words split in C, leading digits stripped from the unique ones
        words = set(data.translate(_NOT_WORD).decode("ascii").split())  # (= IDENTIFIER_ASCII)
        used = {word.lstrip(_DIGITS) for word in words} - _NOTHING - spec.keywords - defines
    else:  # a bytes scan (UTF-8 sequences kept whole), then only the unique tokens decoded and checked
        tokens = {token.decode("utf-8") for token in set(IDENTIFIER_BYTES.findall(data))}
        used = {token for token in tokens if token.isidentifier()} - spec.keywords - defines
    return {"defines": sorted(defines), "references": sorted(used)[:MAX_REFERENCES]}


def _names(name: str) -> list[str]:
    """The identifiers of a name that lists several (``const a = 1, b = 2`` gives ``a, b``)."""
    return [part for part in (p.strip() for p in name.split(",")) if IDENTIFIER.fullmatch(part)]
