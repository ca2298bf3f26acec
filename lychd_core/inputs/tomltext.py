"""One strict TOML reader: malformed, deeply nested or out-of-range TOML is a typed refusal."""

from __future__ import annotations

import tomllib
from typing import Any

from lychd_core.errors import LychdError
from lychd_core.gcpause import cyclic_gc_paused
from lychd_core.inputs.jsontext import MAX_DEPTH, depth_of


def parse_toml(text: str, *, source: str, error: type[LychdError]) -> dict[str, Any]:
    """Parse TOML text; ``error`` names ``source`` and what was wrong."""
    try:
        with cyclic_gc_paused():  # as in parse_json: no finalizers run at the recursion limit
            data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{source}: malformed TOML: {exc}") from None
    except RecursionError:
        raise error(f"{source}: TOML nested deeper than {MAX_DEPTH} levels; flatten it") from None
    except ValueError as exc:  # e.g. an integer over the interpreter's digit limit
        raise error(f"{source}: TOML value out of range: {exc}") from None
    if depth_of(data) > MAX_DEPTH:
        raise error(f"{source}: TOML nested deeper than {MAX_DEPTH} levels; flatten it")
    return data
