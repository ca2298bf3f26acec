"""What a quarantined model return may be: a plain JSON document, shallow enough to walk, valid Unicode.

A return comes from a remote model, so nothing about it is trusted: it is checked
without recursion before it is digested (a claim binds its digest) or walked for tokens,
so a deep or non-JSON value is a typed :class:`VaultInputError`, never a crash. Floats are
refused too: claims and receipts bind a return by its canonical-JSON digest, and canonical
JSON has no floats (one number, one spelling).
"""

from __future__ import annotations

import re
from typing import Any

from lychd_core.errors import VaultInputError
from lychd_core.inputs import MAX_DEPTH

MAX_RETURN_NODES = 1_000_000
_SURROGATE = re.compile("[\ud800-\udfff]")


def _bad_string(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def check_return(value: Any) -> None:
    """Refuse anything but a JSON document of at most ``MAX_DEPTH`` levels and ``MAX_RETURN_NODES`` values."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    nodes = 0
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH or nodes > MAX_RETURN_NODES:
            bound = f"{MAX_DEPTH} levels" if depth > MAX_DEPTH else f"{MAX_RETURN_NODES} values"
            raise VaultInputError(f"the quarantined return is larger than {bound}; it is not rehydrated")
        if isinstance(item, dict):
            if any(not isinstance(key, str) or _bad_string(key) for key in item):
                raise VaultInputError("the quarantined return has an object key that is not valid Unicode text")
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, str):
            if _bad_string(item):
                raise VaultInputError("the quarantined return has a string with a lone surrogate")
        elif isinstance(item, float):  # its digest is canonical JSON, which has no floats
            raise VaultInputError("the quarantined return holds a floating-point number; returns take integers only")
        elif item is not None and not isinstance(item, (bool, int)):
            raise VaultInputError(f"the quarantined return holds a {type(item).__name__}; only JSON values may")
