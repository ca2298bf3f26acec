"""Derived memory: records, lifecycle, tombstones, retrieval, the index and the store contract.

The store backends (SQLite, PostgreSQL) live in :mod:`lychd_core.stores`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lychd_core.lazy import lazy_attribute

if TYPE_CHECKING:
    from lychd_core.memory.codec import load_records_file, parse_records_json, record_from_json
    from lychd_core.memory.evidence import MemoryEvidence, evidence_text
    from lychd_core.memory.explanation import MemoryExplanation
    from lychd_core.memory.filters import FILTER_ORDER, ExclusionReason
    from lychd_core.memory.index import MemoryIndex
    from lychd_core.memory.lifecycle import (
        add_feedback,
        check_successor,
        expire,
        quarantine,
        release,
        review,
        supersede,
    )
    from lychd_core.memory.plan import RetrievalPlan
    from lychd_core.memory.protocol import MemoryStore
    from lychd_core.memory.query import MemoryQuery, RankingWeights
    from lychd_core.memory.records import ClaimType, Feedback, LifecycleState, MemoryRecord
    from lychd_core.memory.retrieval import retrieve, scan
    from lychd_core.memory.scope import MemoryScope, ScopePolicy
    from lychd_core.memory.tombstones import ActiveView, Tombstone, forget, replay

_EXPORTS = {
    "lychd_core.memory.codec": "load_records_file parse_records_json record_from_json",
    "lychd_core.memory.evidence": "MemoryEvidence evidence_text",
    "lychd_core.memory.explanation": "MemoryExplanation",
    "lychd_core.memory.filters": "FILTER_ORDER ExclusionReason",
    "lychd_core.memory.index": "MemoryIndex",
    "lychd_core.memory.lifecycle": "add_feedback check_successor expire quarantine release review supersede",
    "lychd_core.memory.plan": "RetrievalPlan",
    "lychd_core.memory.protocol": "MemoryStore",
    "lychd_core.memory.query": "MemoryQuery RankingWeights",
    "lychd_core.memory.records": "ClaimType Feedback LifecycleState MemoryRecord",
    "lychd_core.memory.retrieval": "retrieve scan",
    "lychd_core.memory.scope": "MemoryScope ScopePolicy",
    "lychd_core.memory.tombstones": "ActiveView Tombstone forget replay",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, name, _EXPORTS)


__all__ = [
    "FILTER_ORDER",
    "ActiveView",
    "ClaimType",
    "ExclusionReason",
    "Feedback",
    "LifecycleState",
    "MemoryEvidence",
    "MemoryExplanation",
    "MemoryIndex",
    "MemoryQuery",
    "MemoryRecord",
    "MemoryScope",
    "MemoryStore",
    "RankingWeights",
    "RetrievalPlan",
    "ScopePolicy",
    "Tombstone",
    "add_feedback",
    "check_successor",
    "evidence_text",
    "expire",
    "forget",
    "load_records_file",
    "parse_records_json",
    "quarantine",
    "record_from_json",
    "release",
    "replay",
    "retrieve",
    "review",
    "scan",
    "supersede",
]
