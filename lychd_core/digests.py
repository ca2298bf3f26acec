"""Canonical JSON and ``sha256:<hex>`` digests: the one module that writes canonical bytes.

Canonical JSON: sorted keys, no insignificant whitespace, UTF-8, integers only.
Floats (and so NaN and infinities) are refused because their text is not stable
across platforms, and every digest in lychd-core must be reproducible.

:func:`canonical_json` checks and encodes; :func:`built_json_digest` and
:func:`orjson_canonical` are for values a caller built (no check walk);
:func:`streamed_json_digest` is the same digest for a built value holding an array of any
length (a store's active set), hashed batch by batch;
:func:`compact_json_text` is the same encoding for message text, where floats may occur.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import count, islice
from typing import Any, TypeAlias, cast

import orjson

JsonValue: TypeAlias = "bool | int | str | Sequence[JsonValue] | Mapping[str, JsonValue] | None"

DIGEST_PREFIX = "sha256:"
_DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}$")


MAX_NESTING = 200
"""Deepest nesting of arrays and objects canonical JSON accepts (as the JSON readers do)."""
MAX_CONTAINERS = 1_000_000
"""Most arrays and objects one value may hold: a value sharing one list many times over is
as large as its encoding, and a cyclic one has no encoding at all."""
_TOO_LARGE = (
    f"canonical JSON refuses a value nested deeper than {MAX_NESTING} levels or holding more than "
    f"{MAX_CONTAINERS:,} arrays and objects (a value that contains itself is both); flatten it"
)


def _check(value: object, path: str, depth: int, budget: list[int]) -> None:
    """Name the first thing in ``value`` canonical JSON refuses (a ``TypeError``)."""
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        raise TypeError(f"canonical JSON refuses floats (at {path or '$'}); use integers")
    budget[0] -= 1
    if depth > MAX_NESTING or budget[0] < 0:
        where = path if len(path) <= 60 else path[:60] + "..."
        raise TypeError(f"{_TOO_LARGE} (at {where or '$'})")
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"canonical JSON keys must be strings (at {path or '$'}: {key!r})")
            _check(item, f"{path}.{key}", depth + 1, budget)
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check(item, f"{path}[{index}]", depth + 1, budget)
        return
    raise TypeError(f"canonical JSON cannot encode {type(value).__name__} (at {path or '$'})")


_LEAVES = frozenset({str, int, bool, type(None)})
_STR = frozenset({str})


_CANONICAL_VALUE, _NOT_JSON, _TOO_BIG = 0, 1, 2


def _scan(value: object) -> int:
    """Whether ``value`` is canonical JSON (``_CANONICAL_VALUE``), holds something JSON cannot
    encode (``_NOT_JSON``: ``_check`` names it) or is too deep or too large (``_TOO_BIG``),
    without building paths.

    Iterative, level by level, with exact-type fast paths: digests of big summaries are on
    hot paths. The types of a container's items are gathered in C, so a list of strings (or
    a dict of scalars) is checked without a Python step per item; only nested containers
    are visited. Past :data:`MAX_NESTING` levels or :data:`MAX_CONTAINERS` containers the
    answer is no, so a value that contains itself ends the walk instead of looping.
    """
    level = [value]
    visited = 0
    for depth in count(1):
        if depth > MAX_NESTING:  # only scalars (an enum member, say) may sit this deep
            if all(isinstance(item, (str, int)) for item in level):
                return _CANONICAL_VALUE
            return _TOO_BIG if any(isinstance(item, (list, tuple, Mapping)) for item in level) else _NOT_JSON
        visited += len(level)
        if visited > MAX_CONTAINERS:
            return _TOO_BIG
        below: list[object] = []
        for item in level:
            kind = type(item)
            if kind in _LEAVES:
                continue
            children: Iterable[object]
            if kind is list or kind is tuple:
                children = cast("list[object]", item)
            elif kind is dict:
                mapping = cast("dict[object, object]", item)
                if not set(map(type, mapping)) <= _STR and not all(isinstance(key, str) for key in mapping):
                    return _NOT_JSON
                children = mapping.values()
            elif isinstance(item, (str, int)):  # subclasses: enums, for example; a float is neither
                continue
            elif isinstance(item, (list, tuple)):
                children = item
            elif isinstance(item, Mapping):
                if not all(isinstance(key, str) for key in item):
                    return _NOT_JSON
                children = item.values()
            else:
                return _NOT_JSON
            if not set(map(type, children)) <= _LEAVES:
                below.extend([child for child in children if type(child) not in _LEAVES])
        if not below:
            return _CANONICAL_VALUE
        level = below
    raise AssertionError("unreachable")  # count() never ends; the loop returns


def is_canonical_value(value: object) -> bool:
    """Whether ``value`` is canonical JSON: string keys, no floats, only JSON's kinds (no paths built)."""
    return _scan(value) == _CANONICAL_VALUE


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_MAKE_C_ENCODER: Callable[..., Callable[[Any, int], Sequence[str]]] | None = getattr(
    json.encoder, "c_make_encoder", None
)
_C_ENCODE = (
    None
    if _MAKE_C_ENCODER is None
    else _MAKE_C_ENCODER(None, _CANONICAL.default, json.encoder.encode_basestring, None, ":", ",", True, False, False)
)
"""``_CANONICAL``'s C encoder, made once (``encode`` makes one per call, a quarter of a small
message's cost). Without cycle markers a cyclic value ends in ``RecursionError``."""


def compact_json_text(value: Any) -> str:
    """Sorted-key, compact JSON text with the standard library's escapes (floats written as
    Python writes them): canonical JSON's encoding for values that are not checked, such as
    messages. Raises ``TypeError``, ``ValueError`` (NaN) or ``RecursionError`` (a cycle)."""
    return _CANONICAL.encode(value) if _C_ENCODE is None else "".join(_C_ENCODE(value, 0))


def canonical_json(value: object) -> bytes:
    """Encode ``value`` as canonical JSON bytes; a ``TypeError`` names the first thing refused.

    A value that passes the check is written by orjson, which gives the standard library's
    bytes (property tests hold it so) several times faster; what orjson refuses (a key that
    is not exactly ``str``, an integer past 64 bits, a lone surrogate) the standard encoder writes."""
    found = _scan(value)
    if found == _TOO_BIG:
        raise TypeError(_TOO_LARGE)
    if found == _NOT_JSON:
        _check(value, "", 1, [MAX_CONTAINERS])
    data = orjson_canonical(value)
    return compact_json_text(value).encode("utf-8") if data is None else data


def orjson_canonical(value: object) -> bytes | None:
    """The canonical JSON bytes of ``value`` written by orjson, or None where orjson refuses it.

    Only for a value the caller built or checked to hold JSON's kinds and no float (orjson
    would write a float, and NaN as ``null``). For such a value orjson writes byte for byte
    the canonical form (sorted keys, compact, UTF-8, the standard library's string escapes;
    property tests hold it to that), many times faster. It refuses a key that is not
    exactly ``str``, an integer past 64 bits and a lone surrogate: the caller then takes
    the standard encoder."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return None


def canonical_text(value: object) -> str:
    """Canonical JSON text of a value the caller built from strings, integers, ``None``, lists
    and dicts (no check walk). A lone surrogate is kept in the text; the caller encodes it."""
    data = orjson_canonical(value)
    return compact_json_text(value) if data is None else data.decode("utf-8")


def built_json_bytes(value: object) -> bytes:
    """Canonical JSON bytes of a value the caller built (as for :func:`built_json_digest`)."""
    data = orjson_canonical(value)
    return compact_json_text(value).encode("utf-8") if data is None else data


def built_json_digest(value: object) -> str:
    """:func:`json_digest` of a value the caller built only from checked strings, integers,
    ``None`` and lists of them (a graph's node summaries): the check walk is skipped."""
    return sha256_digest(built_json_bytes(value))


class StreamedArray:
    """A JSON array whose items are made while a streamed digest is taken, so it may be any
    length: neither a list of every item nor one bytes value of them all is ever held."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[object]) -> None:
        self.items = items


STREAM_BATCH = 4096
"""Items encoded per orjson call: large enough that the per-call cost vanishes, small enough
that a batch's bytes stay a few hundred kilobytes."""


def _array_chunks(items: Iterable[object]) -> Iterator[bytes]:
    yield b"["
    iterator = iter(items)
    separator = b""
    while batch := list(islice(iterator, STREAM_BATCH)):
        yield separator + built_json_bytes(batch)[1:-1]  # a non-empty batch's items without its brackets
        separator = b","
    yield b"]"


def streamed_json_chunks(value: object) -> Iterator[bytes]:
    """The canonical JSON bytes of a built value, in pieces; a :class:`StreamedArray` (alone or
    as a value of a ``dict``) is encoded batch by batch. Joined, the pieces are byte for byte
    :func:`built_json_bytes` of the same value with each streamed array made a list."""
    if isinstance(value, StreamedArray):
        yield from _array_chunks(value.items)
    elif type(value) is dict and any(isinstance(item, StreamedArray) for item in value.values()):
        separator = b"{"
        for key in sorted(value):
            yield separator + built_json_bytes(key) + b":"
            yield from streamed_json_chunks(value[key])
            separator = b","
        yield b"}"
    else:
        yield built_json_bytes(value)


def streamed_json_digest(value: object) -> str:
    """:func:`built_json_digest` of ``value`` hashed piece by piece (see :func:`streamed_json_chunks`):
    the same digest, with no bound on a streamed array's length but memory for one batch."""
    hasher = hashlib.sha256()
    for chunk in streamed_json_chunks(value):
        hasher.update(chunk)
    return DIGEST_PREFIX + hasher.hexdigest()


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
