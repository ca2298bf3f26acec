"""One strict JSON reader for every JSON input: typed refusals, never a crash.

It refuses what ``json.loads`` would crash or stall on: nesting deeper than
:data:`MAX_DEPTH` (checked without recursion), integers past Python's digit limit,
strings holding a lone surrogate (``"\\udc80"``: no UTF-8 encoder accepts it later),
``NaN``/``Infinity``, duplicate keys (checked in linear time, so an object with
100,000 keys costs milliseconds), floats where a caller allows none, and bytes that
are not UTF-8. The caller names the error type, so each input keeps its own error.
"""

from __future__ import annotations

import json
import re
from typing import Any

from lychd_core.errors import LychdError
from lychd_core.gcpause import cyclic_gc_paused

MAX_DEPTH = 200
"""Deepest nesting of arrays and objects accepted; real inputs stay far below it."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Refused(Exception):
    """Raised inside the decoder hooks; turned into the caller's error type."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        repeated: set[str] = set()
        for key, _ in pairs:
            (repeated if key in seen else seen).add(key)
        raise _Refused(f"duplicate JSON keys {sorted(repeated)[:5]}; each key may appear once per object")
    return result


def _constant(name: str) -> Any:
    raise _Refused(f"JSON constant {name} is not allowed")


def _no_float(text: str) -> Any:
    raise _Refused(f"floats are not allowed here (got {text[:40]}); use integers")


def depth_of(value: Any, limit: int = MAX_DEPTH) -> int:
    """Nesting depth of a parsed JSON value, found without recursion; stops counting past ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def lone_surrogate_at(value: Any) -> str | None:
    """The path of the first string (key or value) holding a lone surrogate, found without recursion."""
    stack: list[tuple[Any, str]] = [(value, "$")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                return path
        elif isinstance(item, dict):
            for key, child in item.items():
                if not key.isascii() and _SURROGATE.search(key):
                    return f"{path} (a key)"
                stack.append((child, f"{path}.{key[:40]}"))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{index}]") for index, child in enumerate(item))
    return None


def _check_surrogates(text: str, value: Any, source: str, error: type[LychdError]) -> None:
    """Refuse a lone surrogate; the walk runs only when the text holds one or an escape that may make one."""
    if _SURROGATE.search(text) is None and _SURROGATE_ESCAPE.search(text) is None:
        return
    where = lone_surrogate_at(value)
    if where is not None:
        raise error(f"{source}: the string at {where} holds a lone surrogate; JSON strings must be valid Unicode")


def parse_json(
    text: str | bytes,
    *,
    source: str,
    error: type[LychdError],
    allow_floats: bool = True,
    max_depth: int = MAX_DEPTH,
) -> Any:
    """Parse ``text`` strictly; every problem is ``error`` naming ``source`` and what was wrong."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(f"{source}: not UTF-8 (invalid byte at offset {exc.start}); re-encode it as UTF-8") from None
    try:
        # Deep input drives the parser to the recursion limit (refused below); a collection
        # started there would run other objects' finalizers with no stack left, and their
        # RecursionError escapes as "Exception ignored". The parser's own objects need none.
        with cyclic_gc_paused():
            value = json.loads(
                text,
                object_pairs_hook=_object,
                parse_constant=_constant,
                parse_float=None if allow_floats else _no_float,
            )
    except _Refused as exc:
        raise error(f"{source}: {exc}") from None
    except RecursionError:
        raise error(f"{source}: JSON nested deeper than {max_depth} levels; flatten it") from None
    except json.JSONDecodeError as exc:
        raise error(f"{source}: malformed JSON: {exc}") from None
    except ValueError as exc:  # e.g. an integer over the interpreter's digit limit
        raise error(f"{source}: JSON value out of range: {exc}") from None
    if depth_of(value, max_depth) > max_depth:
        raise error(f"{source}: JSON nested deeper than {max_depth} levels; flatten it")
    _check_surrogates(text, value, source, error)
    return value
