"""Canonical JSON refuses, with a TypeError naming the problem, what it cannot encode in
bounded time: a value that contains itself, nesting past MAX_NESTING, and a value sharing
one list so often that its encoding would not fit in memory."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core import digests
from lychd_core.digests import MAX_NESTING, canonical_json, is_canonical_value, json_digest


def nested(depth: int, leaf: Any = 1) -> Any:
    value: Any = leaf
    for _ in range(depth):
        value = [value]
    return value


def test_a_list_that_contains_itself_is_refused_not_walked_forever() -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    assert not is_canonical_value(loop)
    with pytest.raises(TypeError, match="contains itself"):
        json_digest(loop)


def test_a_dict_that_contains_itself_through_a_list_is_refused() -> None:
    outer: dict[str, Any] = {"a": []}
    outer["a"].append(outer)
    with pytest.raises(TypeError, match="contains itself"):
        canonical_json(outer)


def test_nesting_up_to_the_bound_is_accepted_and_one_more_level_is_refused() -> None:
    assert is_canonical_value(nested(MAX_NESTING))
    assert json_digest(nested(MAX_NESTING)) == json_digest(nested(MAX_NESTING))
    assert not is_canonical_value(nested(MAX_NESTING + 1))
    with pytest.raises(TypeError, match=f"deeper than {MAX_NESTING}"):
        canonical_json(nested(MAX_NESTING + 1))


def test_a_scalar_at_the_deepest_level_is_accepted_whatever_its_type() -> None:
    class Small(int):
        pass

    assert is_canonical_value(nested(MAX_NESTING, Small(3)))
    assert not is_canonical_value(nested(MAX_NESTING, 1.5))
    with pytest.raises(TypeError, match="floats"):
        canonical_json(nested(MAX_NESTING, 1.5))


def test_a_value_sharing_one_list_exponentially_often_is_refused_quickly() -> None:
    value: Any = [1]
    for _ in range(60):
        value = [value, value]  # 2**60 lists to encode
    assert not is_canonical_value(value)
    with pytest.raises(TypeError, match="arrays and objects"):
        canonical_json(value)


def test_the_checker_that_names_problems_stops_at_the_same_bounds() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(TypeError, match=r"contains itself.*\(at (\[0\]){20}\.\.\.\)"):
        digests._check(loop, "", 1, [digests.MAX_CONTAINERS])
