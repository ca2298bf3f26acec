"""Multi-resolution material: coarser views of one projected file, offered as alternatives.

A projection profile may offer coarser resolutions of its own output through an
optional capability, ``resolutions(facts, query_terms)``: ``(name, text)`` pairs from
finer to coarser, each strictly shorter than the one before and than the full text.
They become nodes of one exclusive group with the full projection, so selection keeps
at most one of them: the finest that fits, for the highest-ranked files first. A
resolution is declared as an omission in its block's lineage; it is never cut text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

from lychd_core.blocks import Block, Omission
from lychd_core.digests import JsonValue

_NAME = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
MAX_RESOLUTIONS = 3

Offer = Callable[[JsonValue, frozenset[str]], Any]


def offer_of(profile: object) -> Offer | None:
    """The profile's ``resolutions`` capability, if it declares one."""
    method = getattr(profile, "resolutions", None)
    return cast(Offer, method) if callable(method) else None


def checked_resolutions(full: Block, raw: object) -> tuple[tuple[str, str], ...] | str:
    """The offered resolutions, verified; or why they were refused (a string)."""
    if not isinstance(raw, tuple) or len(raw) > MAX_RESOLUTIONS:
        return f"resolutions must be a tuple of at most {MAX_RESOLUTIONS} (name, text) pairs"
    previous = len(full.text)
    seen: set[str] = set()
    kept: list[tuple[str, str]] = []
    for item in raw:
        if not (isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            return "each resolution must be a (name, text) pair of strings"
        name, text = item
        if not _NAME.match(name) or name in seen:
            return f"resolution name {name!r} must be a unique lower-case word"
        seen.add(name)
        if text and len(text) < previous:  # one no smaller than a finer one would never be chosen
            kept.append((name, text))
            previous = len(text)
    return tuple(kept)


def resolution_block(full: Block, name: str, text: str) -> Block:
    """The block of one coarser resolution: same label and sources, the omission declared."""
    omission = Omission(
        kind=f"resolution-{name}",
        reason=f"a coarser resolution ({name}) of {full.key}: the full projection has {len(full.text)} characters",
    )
    lineage = full.lineage.model_copy(update={"omissions": (*full.lineage.omissions, omission)})
    return Block(layer=full.layer, key=f"{full.key}#{name}", text=text, label=full.label, lineage=lineage)
