"""One record's explanation: selected with its scores, or excluded with a typed reason."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lychd_core.memory.filters import ExclusionReason


@dataclass(frozen=True, slots=True, eq=True)
class MemoryExplanation:
    """Why one input record was selected or excluded. Holds no claim content."""

    memory_id: str
    revision: int
    selected: bool
    reason: ExclusionReason | None
    detail: str
    rank: int | None = None
    """1-based rank among records that passed every filter; ``None`` for filtered records."""
    scores: Mapping[str, int] | None = None
    token_estimate: int | None = None
    """Evidence tokens, for ranked records."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.memory_id,
            "revision": self.revision,
            "status": "selected" if self.selected else "excluded",
            "reason": None if self.reason is None else self.reason.value,
            "detail": self.detail,
            "rank": self.rank,
            "scores": None if self.scores is None else dict(self.scores),
            "token_estimate": self.token_estimate,
        }
