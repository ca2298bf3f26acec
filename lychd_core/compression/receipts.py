"""``CompactionReceipt``: what a derived node was made from, under which policy and bounds.

A receipt holds ids, digests, sizes, invariants and declared omissions, never source text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lychd_core.blocks import Omission
from lychd_core.digests import json_digest
from lychd_core.families import SourceRange
from lychd_core.vocabulary import Trust, token

RECEIPT_FORMAT = "lychd.compaction-receipt"
OMISSION_FIELDS = tuple(Omission.model_fields)
"""An omission's fields are strings, integers or ``None``: its JSON form is its fields as
they are (``model_dump`` costs more than the rest of a receipt)."""


@dataclass(frozen=True, slots=True)
class CompactionReceipt:
    """Links a derived node to its sources, policy, budget, invariants and omissions."""

    output_id: str
    output_digest: str
    policy_id: str
    policy_digest: str
    sources: tuple[tuple[str, str], ...]
    """``(node_id, digest)`` of every replaced source, sorted by id."""
    ranges: tuple[SourceRange, ...]
    graph_digest: str
    """The graph the proposal was validated against."""
    max_chars: int
    """The character bound the compressor was given."""
    replaced_tokens: int
    replaced_chars: int
    output_tokens: int
    output_chars: int
    trust: Trust
    label_digest: str
    invariants: tuple[str, ...]
    omissions: tuple[Omission, ...]

    @property
    def saved_tokens(self) -> int:
        return self.replaced_tokens - self.output_tokens

    @property
    def saved_chars(self) -> int:
        return self.replaced_chars - self.output_chars

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RECEIPT_FORMAT,
            "version": 1,
            "output": {"id": self.output_id, "digest": self.output_digest},
            "policy": {"id": self.policy_id, "digest": self.policy_digest},
            "sources": [{"id": node_id, "digest": digest} for node_id, digest in self.sources],
            "ranges": [[r.node_id, r.start, r.end] for r in self.ranges],
            "graph": self.graph_digest,
            "budget": {"max_chars": self.max_chars},
            "replaced": {"tokens": self.replaced_tokens, "chars": self.replaced_chars},
            "output_size": {"tokens": self.output_tokens, "chars": self.output_chars},
            "saved": {"tokens": self.saved_tokens, "chars": self.saved_chars},
            "trust": token(self.trust),
            "label": self.label_digest,
            "invariants": list(self.invariants),
            "omissions": [{name: getattr(o, name) for name in OMISSION_FIELDS} for o in self.omissions],
        }

    @property
    def digest(self) -> str:
        return json_digest(self.to_json())
