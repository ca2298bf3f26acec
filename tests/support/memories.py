"""One factory for the memory tests' records; each test file passes its own defaults."""

from __future__ import annotations

from typing import Any

from lychd_core.memory import ClaimType, MemoryRecord, MemoryScope
from lychd_core.vocabulary import Provenance


def memory_record(**fields: Any) -> MemoryRecord:
    """A valid first revision of memory ``m1``; ``fields`` override any of its values."""
    values: dict[str, Any] = {
        "memory_id": "m1",
        "revision": 1,
        "scope": MemoryScope(project="p"),
        "claim_type": ClaimType.FACT,
        "claim": "The build runs with tox.",
        "source_provenance": Provenance.USER,
        "source_events": ("ev1",),
        "confidence": 8000,
        "token_estimate": 10,
        "created": 1,
        "observed": 1,
    }
    values.update(fields)
    return MemoryRecord(**values)
