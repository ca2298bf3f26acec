"""Small validators shared by records, tombstones and queries.

Every integer is checked with ``type(value) is int`` so ``True`` never passes for 1,
and every failure names the field, the value and the accepted range.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable

from lychd_core.errors import InvalidRevisionError, NonCanonicalError, ScoreOutOfRangeError

MAX_BP = 10_000
"""Basis points: every score, confidence, weight and ratio lies in 0..10000."""
MAX_OBSERVATION = 2**62
"""Logical observations are caller-supplied integer clocks that fit SQLite's int64."""
MAX_COUNT = 1_000_000_000
MAX_TOKENS = 1_000_000
MAX_CLAIM_CHARS = 64_000
MAX_ITEMS = 256
MAX_REASON_CHARS = 500

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/+#=-]{0,199}$")
FEATURE_RE = re.compile(r"^[a-z0-9][a-z0-9._:-]{0,63}$")


def check_int(name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int in ``low..high`` or ``ScoreOutOfRangeError``."""
    if type(value) is not int:
        raise ScoreOutOfRangeError(f"{name} must be an integer in {low}..{high}, got {value!r}")
    if not low <= value <= high:
        raise ScoreOutOfRangeError(f"{name} must be in {low}..{high}, got {value}")
    return value


def check_bp(name: str, value: object) -> int:
    return check_int(name, value, 0, MAX_BP)


def check_observation(name: str, value: object) -> int:
    return check_int(name, value, 0, MAX_OBSERVATION)


def check_revision(name: str, value: object) -> int:
    if type(value) is not int or not 1 <= value <= MAX_OBSERVATION:
        raise InvalidRevisionError(f"{name} must be a positive integer (revisions start at 1), got {value!r}")
    return value


def check_id(name: str, value: object) -> str:
    if not isinstance(value, str) or not ID_RE.match(value):
        raise NonCanonicalError(
            f"{name} must be 1-200 characters of letters, digits and ._:@/+#=- starting with a letter or digit, "
            f"got {value!r}"
        )
    return value


def check_text(name: str, value: object, max_chars: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise NonCanonicalError(f"{name} must be non-empty text, got {value!r}")
    if len(value) > max_chars:
        raise ScoreOutOfRangeError(f"{name} has {len(value)} characters; at most {max_chars} are allowed")
    if not value.isascii():
        check_unicode(name, value)
    return value


def check_unicode(name: str, value: str) -> str:
    """``value`` if it is encodable as UTF-8; a lone surrogate (from ``\\udc80`` in JSON) is refused."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise NonCanonicalError(
            f"{name} is not valid Unicode text: a lone surrogate at character {exc.start}; "
            "surrogates must come in pairs (write the character itself or its UTF-16 pair)"
        ) from None
    return value


def _check_canonical_tuple(
    name: str, values: object, noun: str, check_item: Callable[[str, object], str]
) -> tuple[str, ...]:
    """A bounded tuple whose items pass ``check_item``, in strictly ascending order."""
    if not isinstance(values, tuple):
        raise NonCanonicalError(f"{name} must be a tuple of {noun}, got {type(values).__name__}")
    if len(values) > MAX_ITEMS:
        raise ScoreOutOfRangeError(f"{name} lists {len(values)} {noun}; at most {MAX_ITEMS} are allowed")
    for value in values:
        check_item(f"{name} item", value)
    check_strictly_ascending(name, values)
    return values


def check_sorted_ids(name: str, values: object, *, allow_empty: bool = True) -> tuple[str, ...]:
    """A tuple of ids in strictly ascending order (canonical: sorted, no duplicates)."""
    return _check_canonical_tuple(name, values, "ids", check_id)


def check_strictly_ascending(name: str, values: Iterable[str]) -> None:
    items = list(values)
    if any(a >= b for a, b in itertools.pairwise(items)):
        canonical = sorted(set(items))
        raise NonCanonicalError(f"{name} must be sorted and duplicate-free: expected {canonical!r}, got {items!r}")


def check_feature_name(name: str, value: object) -> str:
    if not isinstance(value, str) or not FEATURE_RE.match(value):
        raise NonCanonicalError(
            f"{name} {value!r} is not a canonical feature name: 1-64 lowercase letters, digits and ._:- "
            "starting with a letter or digit"
        )
    return value


def check_feature_names(name: str, values: object) -> tuple[str, ...]:
    return _check_canonical_tuple(name, values, "feature names", check_feature_name)
