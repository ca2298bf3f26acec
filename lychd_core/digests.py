"""Canonical JSON and ``sha256:<hex>`` digests.

Canonical JSON: sorted keys, no insignificant whitespace, UTF-8, integers only.
Floats (and so NaN and infinities) are refused because their text is not stable
across platforms, and every digest in lychd-core must be reproducible.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeAlias, cast

JsonValue: TypeAlias = "bool | int | str | Sequence[JsonValue] | Mapping[str, JsonValue] | None"

DIGEST_PREFIX = "sha256:"
_DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}$")


def _check(value: object, path: str) -> None:
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        raise TypeError(f"canonical JSON refuses floats (at {path or '$'}); use integers")
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"canonical JSON keys must be strings (at {path or '$'}: {key!r})")
            _check(item, f"{path}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check(item, f"{path}[{index}]")
        return
    raise TypeError(f"canonical JSON cannot encode {type(value).__name__} (at {path or '$'})")


_LEAVES = frozenset({str, int, bool, type(None)})
_STR = frozenset({str})


def _plain(value: object) -> bool:
    """Whether ``value`` is canonical JSON, without building paths (``_check`` names the problem).

    Iterative, with exact-type fast paths: digests of big summaries are on hot paths. The
    types of a container's items are gathered in C, so a list of strings (or a dict of
    scalars) is checked without a Python step per item; only nested containers are visited.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _LEAVES:
            continue
        children: Iterable[object]
        if kind is list or kind is tuple:
            children = cast("list[object]", item)
        elif kind is dict:
            mapping = cast("dict[object, object]", item)
            if not set(map(type, mapping)) <= _STR and not all(isinstance(key, str) for key in mapping):
                return False
            children = mapping.values()
        elif isinstance(item, (str, int)):  # subclasses: enums, for example; a float is neither
            continue
        elif isinstance(item, (list, tuple)):
            children = item
        elif isinstance(item, Mapping):
            if not all(isinstance(key, str) for key in item):
                return False
            children = item.values()
        else:
            return False
        if not set(map(type, children)) <= _LEAVES:
            stack.extend([child for child in children if type(child) not in _LEAVES])
    return True


def is_canonical_value(value: object) -> bool:
    """Whether ``value`` is canonical JSON: string keys, no floats, only JSON's kinds (no paths built)."""
    return _plain(value)


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: object) -> bytes:
    """Encode ``value`` as canonical JSON bytes."""
    if not _plain(value):
        _check(value, "")
    return _CANONICAL.encode(value).encode("utf-8")


def built_json_digest(value: object) -> str:
    """:func:`json_digest` of a value the caller built only from checked strings, integers,
    ``None`` and lists of them (a graph's node summaries): the check walk is skipped."""
    return sha256_digest(_CANONICAL.encode(value).encode("utf-8"))


def sha256_digest(data: bytes) -> str:
    """``sha256:<hex>`` of raw bytes."""
    return DIGEST_PREFIX + hashlib.sha256(data).hexdigest()


def text_digest(text: str) -> str:
    """Digest of a string's UTF-8 bytes."""
    return sha256_digest(text.encode("utf-8"))


def json_digest(value: object) -> str:
    """Digest of the canonical JSON of ``value``."""
    return sha256_digest(canonical_json(value))


def is_digest(value: str) -> bool:
    """Whether ``value`` is a well-formed ``sha256:<64 hex>`` digest."""
    return bool(_DIGEST_RE.match(value))


def check_digest(value: str) -> str:
    """Return ``value`` if it is a well-formed digest, else raise ``ValueError``."""
    if not is_digest(value):
        raise ValueError(f"expected a digest like 'sha256:<64 lowercase hex>', got {value!r}")
    return value
