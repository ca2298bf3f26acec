"""Ordinary Python input to canonical collections, for records, queries and tombstones.

Constructors take lists, sets, tuples and mappings in any order and canonicalize them
(sorted, duplicate-free). What stays ambiguous is refused: a feature named twice with
different weights, a bare string where a collection of ids belongs (is ``"ab"`` one id
or two?). Replay of stored data uses the canonical-only checks in ``checks`` instead,
where non-canonical input means corruption.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lychd_core.errors import NonCanonicalError
from lychd_core.memory.checks import check_feature_name, check_id


def _items(name: str, values: object, noun: str) -> list[object]:
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise NonCanonicalError(
            f"{name} must be a collection of {noun} (a list, tuple or set), got {type(values).__name__} {values!r}"
        )
    return list(values)


def canonical_ids(name: str, values: object) -> tuple[str, ...]:
    """Any collection of ids, sorted and duplicate-free; each id is checked first."""
    items = _items(name, values, "ids")
    for value in items:
        check_id(f"{name} item", value)
    return tuple(sorted(set(items)))  # type: ignore[arg-type]  # every item was checked to be a str


def canonical_feature_names(name: str, values: object) -> tuple[str, ...]:
    """Any collection of feature names, sorted and duplicate-free."""
    items = _items(name, values, "feature names")
    for value in items:
        check_feature_name(f"{name} item", value)
    return tuple(sorted(set(items)))  # type: ignore[arg-type]  # every item was checked to be a str


def canonical_features(values: object) -> tuple[tuple[str, int], ...]:
    """A ``{name: weight}`` mapping or any collection of ``(name, weight)`` pairs, sorted by
    name. A name given twice with one weight counts once; with two weights it is refused."""
    pairs: list[object] = list(values.items()) if isinstance(values, Mapping) else _items("features", values, "pairs")
    weights: dict[str, object] = {}
    for pair in pairs:
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise NonCanonicalError(f"each feature must be a (name, weight) pair, got {pair!r}")
        feature, weight = pair
        check_feature_name("feature", feature)
        assert isinstance(feature, str)
        held = weights.setdefault(feature, weight)
        if held != weight or type(held) is not type(weight):
            raise NonCanonicalError(
                f"feature {feature!r} is given twice with different weights ({held!r} and {weight!r}); "
                "give each feature once"
            )
    return tuple(sorted(weights.items()))  # type: ignore[arg-type]  # weights are checked by check_features
