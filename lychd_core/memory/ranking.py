"""Bounded integer ranking components, each in basis points 0..10000.

total = sum(weight x component) // 10000, so the total is also in 0..10000. No floats:
the same inputs give the same scores on every platform. Ties break by memory id.

Four components depend only on the record (scope specificity, confidence, evidence
balance, feedback) and are precomputed by the index; relevance and recency depend on
the query. Both the full scan and the index use these same functions.
"""

from __future__ import annotations

from lychd_core.memory.checks import MAX_BP
from lychd_core.memory.query import COMPONENTS, MemoryQuery
from lychd_core.memory.records import MemoryRecord
from lychd_core.memory.scope import SCOPE_FIELDS

NEUTRAL = MAX_BP // 2

Statics = tuple[int, int, int, int]
"""(scope, confidence, evidence, feedback) components of one record."""


def static_components(record: MemoryRecord) -> Statics:
    supporting, contradicting = len(record.supporting), len(record.contradicting)
    evidence = NEUTRAL if supporting + contradicting == 0 else supporting * MAX_BP // (supporting + contradicting)
    positive, negative = record.feedback.positive, record.feedback.negative
    return (
        record.scope.specificity * MAX_BP // len(SCOPE_FIELDS),
        record.confidence,
        evidence,
        (positive + 1) * MAX_BP // (positive + negative + 2),
    )


class Scorer:
    """The query-dependent half of ranking, with the query's constants bound once."""

    __slots__ = ("features", "horizon", "now", "weights")

    def __init__(self, query: MemoryQuery) -> None:
        self.features = frozenset(query.features)
        self.now = query.now
        self.horizon = query.recency_horizon
        self.weights = query.weights.as_tuple()

    def dynamic(self, record: MemoryRecord) -> tuple[int, int]:
        """(relevance, recency)."""
        features = self.features
        relevance = min(MAX_BP, sum(weight for name, weight in record.features if name in features)) if features else 0
        age = self.now - record.last_confirmed
        recency = max(0, self.horizon - max(0, age)) * MAX_BP // self.horizon
        return relevance, recency

    def total(self, record: MemoryRecord, statics: Statics) -> int:
        relevance, recency = self.dynamic(record)
        scope, confidence, evidence, feedback = statics
        w_scope, w_relevance, w_confidence, w_evidence, w_recency, w_feedback = self.weights
        return (
            w_scope * scope
            + w_relevance * relevance
            + w_confidence * confidence
            + w_evidence * evidence
            + w_recency * recency
            + w_feedback * feedback
        ) // MAX_BP

    def components(self, record: MemoryRecord) -> dict[str, int]:
        """Every component by name, plus ``total``; for explanations."""
        scope, confidence, evidence, feedback = statics = static_components(record)
        relevance, recency = self.dynamic(record)
        scores = dict(zip(COMPONENTS, (scope, relevance, confidence, evidence, recency, feedback), strict=True))
        scores["total"] = self.total(record, statics)
        return scores


def components(record: MemoryRecord, query: MemoryQuery) -> dict[str, int]:
    """The six components and their weighted ``total`` for a record that passed every filter."""
    return Scorer(query).components(record)
