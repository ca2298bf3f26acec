"""Layers, immutable Blocks and the Stable Floor's prefix digest."""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, computed_field

from lychd_core.digests import json_digest, text_digest
from lychd_core.errors import BlockError
from lychd_core.labels import PrivatizationLabel


class Layer(IntEnum):
    """The six layers of a context; 1–4 form the Stable Floor."""

    IDENTITY = 1
    CODEX = 2
    ENVIRONMENT = 3
    KARMA = 4
    STATE = 5
    QUERY = 6

    @property
    def is_floor(self) -> bool:
        return self <= Layer.KARMA


class Omission(BaseModel):
    """A declared, visible omission: what was left out of a block and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = Field(min_length=1, description="What kind of omission, e.g. 'truncated'.")
    first_line: int | None = Field(default=None, ge=1, description="First omitted source line.")
    last_line: int | None = Field(default=None, ge=1, description="Last omitted source line.")
    reason: str = Field(min_length=1, description="Why it was omitted.")


class Lineage(BaseModel):
    """Where a block came from: sources, the transforming profile and its omissions."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_path: str | None = None
    source_digests: tuple[str, ...] = ()
    profile: str | None = Field(default=None, description="Exact 'name@revision' of the producing plugin.")
    parser_version: str | None = None
    omissions: tuple[Omission, ...] = ()
    tags: tuple[str, ...] = Field(default=(), description="Caller-supplied lineage tags of the source reference.")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class Block(BaseModel):
    """An immutable, attributed piece of context. ``content_hash`` is derived, never supplied."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layer: Layer
    key: str = Field(min_length=1)
    text: str
    label: PrivatizationLabel = Field(default_factory=PrivatizationLabel.restricted_unknown)
    lineage: Lineage = Field(default_factory=Lineage)
    _content_hash: str = PrivateAttr()

    if not TYPE_CHECKING:  # type checkers keep checking the fields; bad input is a BlockError

        def __init__(self, **data: Any) -> None:
            if "content_hash" in data:
                raise BlockError(
                    f"block {data.get('key')!r}: content_hash is derived from the text (sha256 of its UTF-8), "
                    "never passed; drop it"
                )
            try:
                super().__init__(**data)
            except ValidationError as exc:
                problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'block'}: {e['msg']}" for e in exc.errors())
                known = "layer, key, text, label, lineage"
                raise BlockError(f"invalid block {data.get('key')!r}: {problems} (a Block takes {known})") from None

    def model_post_init(self, context: Any, /) -> None:
        self._content_hash = text_digest(self.text)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def content_hash(self) -> str:
        """``sha256:<hex>`` of the UTF-8 text."""
        return self._content_hash

    def to_json(self) -> dict[str, Any]:
        return {
            "layer": int(self.layer),
            "key": self.key,
            "text": self.text,
            "content_hash": self.content_hash,
            "label": self.label.to_json(),
            "lineage": self.lineage.to_json(),
        }


def prefix_digest(floor: Iterable[Block]) -> str:
    """Digest of the ordered ``(layer, key, content_hash)`` of Stable Floor blocks.

    It witnesses ordered content only; it never claims provider KV-cache reuse.
    """
    triples = []
    for block in floor:
        if not block.layer.is_floor:
            raise BlockError(f"block {block.key!r} is in layer {block.layer.name}; only layers 1-4 form the floor")
        triples.append([int(block.layer), block.key, block.content_hash])
    return json_digest(triples)
