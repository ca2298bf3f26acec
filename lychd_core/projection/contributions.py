"""One reference's outcome: a Codex block, or an explained absence (with what decided it)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from lychd_core.blocks import Block
from lychd_core.digests import JsonValue, json_digest, sha256_digest
from lychd_core.projection.materials import MaterialRef
from lychd_core.projection.media import MediaDecision

__all__ = ["Contribution"]


@dataclass(frozen=True)
class Contribution:
    """One reference's outcome: a Codex block, or an explained absence."""

    ref: MaterialRef
    block: Block | None
    unavailable: str | None
    cached: bool = False
    media_type: str | None = None
    profile_pin: str | None = None
    parser_version: str | None = None
    facts_json: bytes = field(default=b"null", repr=False)
    media: MediaDecision | None = None
    """The media-type decision and the source that made it (None when reading failed first)."""

    @property
    def facts(self) -> JsonValue:
        """The profile's facts as plain data; a fresh copy on every access (detached)."""
        value: JsonValue = json.loads(self.facts_json)
        return value

    @property
    def ok(self) -> bool:
        return self.block is not None

    @property
    def digest(self) -> str:
        """Identity of the contribution: block (with lineage, label, parser and profile) and facts."""
        return json_digest(
            {
                "block": None if self.block is None else self.block.to_json(),
                "unavailable": self.unavailable,
                "media_type": self.media_type,
                "profile": self.profile_pin,
                "parser_version": self.parser_version,
                "facts_digest": sha256_digest(self.facts_json),
                "lineage_tags": list(self.ref.lineage),
            }
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.ref.source,
            "required": self.ref.required,
            "status": "unavailable" if self.block is None else ("cached" if self.cached else "projected"),
            "unavailable": self.unavailable,
            "media_type": self.media_type,
            "media_source": None if self.media is None else self.media.source,
            "profile": self.profile_pin,
            "parser_version": self.parser_version,
            "block": None if self.block is None else self.block.to_json(),
            "facts": self.facts,
            "lineage_tags": list(self.ref.lineage),
            "digest": self.digest,
        }
