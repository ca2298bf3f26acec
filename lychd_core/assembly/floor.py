"""The Stable Floor (layers 1-4): the ``Floor`` value the stages pass along, and its
rendering as instruction text with explicit source boundaries.

Each block is introduced by its layer and key and closed by its key, so a model
(and a reader of a trace) can tell where one attributed source ends and the next
begins. Rendering is a pure function of the ordered blocks: the same blocks give
byte-identical text. No Pydantic AI import.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from lychd_core.blocks import Block, Layer
from lychd_core.errors import BlockError
from lychd_core.ranking.stage import Placement

BLOCK_SEPARATOR = "\n\n"


@dataclass(frozen=True, slots=True)
class Floor:
    """The ordered floor blocks of one assembly, each with its requirement: one value, so a
    block and whether it is required never travel apart. Each entry is a ranking
    ``Placement`` (relevance 0 and no group until the rank stage places it)."""

    entries: tuple[Placement, ...] = ()

    @classmethod
    def of(cls, pairs: Iterable[tuple[Block, bool]]) -> Floor:
        return cls(tuple(Placement(block, required) for block, required in pairs))

    def __iter__(self) -> Iterator[Placement]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def blocks(self) -> tuple[Block, ...]:
        return tuple(entry.block for entry in self.entries)

    @property
    def required(self) -> tuple[bool, ...]:
        return tuple(entry.required for entry in self.entries)

    def required_chars(self) -> int:
        """Characters of the blocks the call must carry."""
        return sum(len(entry.block.text) for entry in self.entries if entry.required)

    def required_chars_by_layer(self) -> dict[str, int]:
        """Required characters per floor layer (``identity``, ``codex``, ``environment``, ``karma``)."""
        parts = {layer.name.lower(): 0 for layer in (Layer.IDENTITY, Layer.CODEX, Layer.ENVIRONMENT, Layer.KARMA)}
        for entry in self.entries:
            if entry.required:
                parts[entry.block.layer.name.lower()] += len(entry.block.text)
        return parts


class FloorBlockError(BlockError):
    """A block offered as floor text is not a floor block, is out of order or repeats a key."""


def block_opening(block: Block) -> str:
    """The line that introduces a block: its layer (number and name) and its key."""
    key = json.dumps(block.key, ensure_ascii=False)
    return f"[lychd block: layer {int(block.layer)} {block.layer.name}, key {key}]"


def block_closing(block: Block) -> str:
    return f"[end lychd block: key {json.dumps(block.key, ensure_ascii=False)}]"


def render_block(block: Block) -> str:
    return f"{block_opening(block)}\n{block.text}\n{block_closing(block)}"


def check_floor(
    blocks: Iterable[object],
    *,
    after: Layer | None = None,
    taken_keys: frozenset[tuple[Layer, str]] = frozenset(),
    what: str = "floor",
) -> tuple[Block, ...]:
    """Validate ordered floor blocks: ``Block`` instances of layers 1-4, layers never
    decreasing (and never below ``after``), no ``(layer, key)`` twice."""
    if not isinstance(blocks, Iterable) or isinstance(blocks, (str, bytes)):
        raise FloorBlockError(f"{what} must be a sequence of Blocks, got {type(blocks).__name__}")
    checked: list[Block] = []
    last = after
    seen = set(taken_keys)
    for index, block in enumerate(blocks):
        where = f"{what}[{index}]"
        if not isinstance(block, Block):
            raise FloorBlockError(f"{where}: expected a lychd_core.blocks.Block, got {type(block).__name__}")
        if not block.layer.is_floor:
            raise FloorBlockError(
                f"{where}: block {block.key!r} is in layer {int(block.layer)} {block.layer.name}; "
                "only layers 1-4 (IDENTITY, CODEX, ENVIRONMENT, KARMA) form the floor. "
                "State is model history and Query is the user prompt"
            )
        if last is not None and block.layer < last:
            raise FloorBlockError(
                f"{where}: block {block.key!r} in layer {int(block.layer)} comes after layer {int(last)}; "
                "floor blocks must be ordered by layer"
            )
        if (block.layer, block.key) in seen:
            raise FloorBlockError(f"{where}: key {block.key!r} appears twice in layer {int(block.layer)}")
        seen.add((block.layer, block.key))
        last = block.layer
        checked.append(block)
    return tuple(checked)


def render_floor(blocks: Sequence[Block]) -> str:
    """Ordered floor blocks as one instruction text; empty when there are none."""
    return BLOCK_SEPARATOR.join(render_block(block) for block in check_floor(blocks))
