"""A deeply nested input is refused without a collection running finalizers at the recursion limit.

The hostile-configuration test once failed at random: tomllib reached the recursion limit on
5,000 nested arrays, a garbage collection started there, and another object's finalizer raised
RecursionError as an "Exception ignored" message. These tests start a collection at every point
of the parse (the threshold decides how many allocations in it starts); pytest fails a test on
any unraisable exception, so each one fails if the collector may run during the parse.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from lychd_core.errors import ConfigError
from lychd_core.inputs import parse_json, parse_toml

DEEP = 5_000


class _FinalizedCycle:
    """Cyclic garbage whose finalizer needs a few frames, as a connection's or a generator's does."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        def nested(levels: int) -> int:
            return 0 if levels == 0 else nested(levels - 1) + 1

        nested(30)


@pytest.fixture
def garbage_due_in(request: pytest.FixtureRequest) -> Iterator[None]:
    """Garbage in generation 0, collected after ``request.param`` more allocations."""
    threshold = gc.get_threshold()
    gc.collect()
    gc.disable()
    for _ in range(5):
        _FinalizedCycle()
    gc.set_threshold(request.param)
    gc.enable()
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.collect()


@pytest.mark.parametrize("garbage_due_in", range(200, 1_200, 10), indirect=True)
def test_deep_toml_is_refused_with_no_collection_inside(garbage_due_in: None) -> None:
    with pytest.raises(ConfigError, match="nested deeper than"):
        parse_toml("x = " + "[" * DEEP + "]" * DEEP, source="lychd.toml", error=ConfigError)
    assert gc.isenabled()


@pytest.mark.parametrize("garbage_due_in", range(300, 1_100, 25), indirect=True)
def test_deep_json_is_refused_with_no_collection_inside(garbage_due_in: None) -> None:
    with pytest.raises(ConfigError, match="nested deeper than"):
        parse_json("[" * DEEP + "]" * DEEP, source="graph.json", error=ConfigError)
    assert gc.isenabled()


def test_the_collector_stays_off_when_the_caller_had_it_off() -> None:
    gc.disable()
    try:
        with pytest.raises(ConfigError):
            parse_toml("x = [", source="lychd.toml", error=ConfigError)
        assert not gc.isenabled()
    finally:
        gc.enable()
