"""Derived memory: records, lifecycle, tombstones, retrieval, the index and the store contract.

The store backends (SQLite, PostgreSQL) live in :mod:`lychd_core.stores`.
"""

from lychd_core.memory.codec import load_records_file, parse_records_json, record_from_json
from lychd_core.memory.evidence import MemoryEvidence, evidence_text
from lychd_core.memory.explanation import MemoryExplanation
from lychd_core.memory.filters import FILTER_ORDER, ExclusionReason
from lychd_core.memory.index import MemoryIndex
from lychd_core.memory.lifecycle import add_feedback, check_successor, expire, quarantine, release, review, supersede
from lychd_core.memory.plan import RetrievalPlan
from lychd_core.memory.protocol import MemoryStore
from lychd_core.memory.query import MemoryQuery, RankingWeights
from lychd_core.memory.records import ClaimType, Feedback, LifecycleState, MemoryRecord
from lychd_core.memory.retrieval import retrieve, scan
from lychd_core.memory.scope import MemoryScope, ScopePolicy
from lychd_core.memory.tombstones import ActiveView, Tombstone, forget, replay

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
