"""Filter-before-rank: the typed exclusion reasons and the compiled filter chain.

A record receives a score only when every filter passes. Filters run in the order of
``FILTER_ORDER``; an excluded record is explained by the first filter it fails.
"""

from __future__ import annotations

from enum import StrEnum

from lychd_core.memory.query import MemoryQuery
from lychd_core.memory.records import LifecycleState, MemoryRecord
from lychd_core.memory.scope import ScopeKey
from lychd_core.vocabulary import ContextClass, Provenance


class ExclusionReason(StrEnum):
    """Why a record was not selected. Replay reasons, then filters in order, then admission."""

    FORGOTTEN = "forgotten"
    OLDER_REVISION = "older-revision"
    SCOPE = "scope-mismatch"
    ROLE_HIDDEN = "role-hidden"
    SUPERSEDED = "superseded"
    QUARANTINED = "quarantined"
    FUTURE = "future-observation"
    EXPIRED = "expired"
    """The record's state is expired, or its ``expires`` observation is not after ``now``."""
    LOW_CONFIDENCE = "low-confidence"
    CLAIM_TYPE = "claim-type"
    INSUFFICIENT_SUPPORT = "insufficient-support"
    MISSING_FEATURE = "missing-feature"
    STALE_REVIEW = "stale-review"
    NEGATIVE_FEEDBACK = "negative-feedback"
    CONTRADICTED = "contradicted"
    RESULT_LIMIT = "result-limit"
    TOKEN_LIMIT = "token-limit"


FILTER_ORDER: tuple[ExclusionReason, ...] = (
    ExclusionReason.SCOPE,
    ExclusionReason.ROLE_HIDDEN,
    ExclusionReason.SUPERSEDED,
    ExclusionReason.QUARANTINED,
    ExclusionReason.FUTURE,
    ExclusionReason.EXPIRED,
    ExclusionReason.LOW_CONFIDENCE,
    ExclusionReason.CLAIM_TYPE,
    ExclusionReason.INSUFFICIENT_SUPPORT,
    ExclusionReason.MISSING_FEATURE,
    ExclusionReason.STALE_REVIEW,
    ExclusionReason.NEGATIVE_FEEDBACK,
    ExclusionReason.CONTRADICTED,
)
"""Per-record filters in evaluation order (tombstones are applied earlier, by replay)."""


def visible_source_provenances(query: MemoryQuery) -> frozenset[Provenance] | None:
    """Original provenances whose memories the query's role may see; ``None`` when no role applies.

    A role sees a memory only if it sees memory evidence as such *and* under the memory's
    original provenance, so memory never shows a role what it could not see directly.
    """
    profile = query.role_profile
    if profile is None:
        return None
    if not profile.sees(ContextClass.MEMORY_EVIDENCE, Provenance.MEMORY):
        return frozenset()
    return frozenset(p for p in Provenance if profile.sees(ContextClass.MEMORY_EVIDENCE, p))


class CompiledFilter:
    """The filter chain of one query, with its lookups precomputed."""

    __slots__ = (
        "claim_types",
        "max_contradiction_bp",
        "max_negative_feedback_bp",
        "max_review_age",
        "min_confidence",
        "min_supporting",
        "now",
        "query",
        "required",
        "scope_keys",
        "visible",
    )

    def __init__(self, query: MemoryQuery) -> None:
        self.query = query
        self.scope_keys: frozenset[ScopeKey] = query.scope_keys()
        self.visible = visible_source_provenances(query)
        self.required = frozenset(query.required_features)
        # Query fields bound once: this chain runs for every scanned record.
        self.now = query.now
        self.claim_types = query.claim_types
        self.min_confidence = query.min_confidence
        self.min_supporting = query.min_supporting
        self.max_review_age = query.max_review_age
        self.max_negative_feedback_bp = query.max_negative_feedback_bp
        self.max_contradiction_bp = query.max_contradiction_bp

    def first_failure(self, record: MemoryRecord) -> ExclusionReason | None:
        """The first filter ``record`` fails, or ``None`` when it may be ranked."""
        if record.scope.key not in self.scope_keys:
            return ExclusionReason.SCOPE
        return self.first_failure_in_scope(record)

    def first_failure_in_scope(self, record: MemoryRecord) -> ExclusionReason | None:
        """The chain after the scope filter, for records already known to be in scope."""
        if self.visible is not None and record.source_provenance not in self.visible:
            return ExclusionReason.ROLE_HIDDEN
        state = record.state
        if state is LifecycleState.SUPERSEDED:
            return ExclusionReason.SUPERSEDED
        if state is LifecycleState.QUARANTINED:
            return ExclusionReason.QUARANTINED
        now = self.now
        if record.observed > now:
            return ExclusionReason.FUTURE
        expires = record.expires
        if state is LifecycleState.EXPIRED or (expires is not None and expires <= now):
            return ExclusionReason.EXPIRED
        if record.confidence < self.min_confidence:
            return ExclusionReason.LOW_CONFIDENCE
        if self.claim_types and record.claim_type not in self.claim_types:
            return ExclusionReason.CLAIM_TYPE
        supporting = len(record.supporting)
        if supporting < self.min_supporting:
            return ExclusionReason.INSUFFICIENT_SUPPORT
        if self.required and not self.required <= {name for name, _ in record.features}:
            return ExclusionReason.MISSING_FEATURE
        if self.max_review_age is not None:
            confirmed = record.created if record.reviewed is None else record.reviewed
            if now - confirmed > self.max_review_age:
                return ExclusionReason.STALE_REVIEW
        feedback = record.feedback
        positive, negative = feedback.positive, feedback.negative
        if negative and negative * 10_000 > self.max_negative_feedback_bp * (positive + negative):
            return ExclusionReason.NEGATIVE_FEEDBACK
        contradicting = len(record.contradicting)
        if contradicting and contradicting * 10_000 > self.max_contradiction_bp * (supporting + contradicting):
            return ExclusionReason.CONTRADICTED
        return None

    def detail(self, record: MemoryRecord, reason: ExclusionReason) -> str:
        """A short, content-free sentence explaining ``reason`` for ``record``."""
        query = self.query
        r = record
        asking = query.role_profile.role if query.role_profile else None
        texts = {
            ExclusionReason.SCOPE: f"record scope {_scope_text(r.scope.key)} does not apply to the query scope "
            f"{_scope_text(query.scope.key)}" + (" (exact-scope policy)" if query.scope_policy == "exact" else ""),
            ExclusionReason.ROLE_HIDDEN: f"role {asking!r} does not see memory evidence from "
            f"{r.source_provenance.value}",
            ExclusionReason.SUPERSEDED: f"superseded by {r.superseded_by!r}",
            ExclusionReason.QUARANTINED: f"quarantined since observation {r.quarantined_at}",
            ExclusionReason.FUTURE: f"observed at {r.observed}, after now ({query.now})",
            ExclusionReason.EXPIRED: "state is expired"
            if r.state is LifecycleState.EXPIRED
            else f"expired at {r.expires} (now {query.now})",
            ExclusionReason.LOW_CONFIDENCE: f"confidence {r.confidence} < minimum {query.min_confidence}",
            ExclusionReason.CLAIM_TYPE: f"claim type {r.claim_type.value} not in "
            f"{sorted(t.value for t in query.claim_types)}",
            ExclusionReason.INSUFFICIENT_SUPPORT: f"{len(r.supporting)} supporting evidence < minimum "
            f"{query.min_supporting}",
            ExclusionReason.MISSING_FEATURE: "lacks required features "
            f"{sorted(self.required - {name for name, _ in r.features})}",
            ExclusionReason.STALE_REVIEW: f"last confirmed at {r.last_confirmed}, more than {query.max_review_age} "
            f"before now ({query.now})",
            ExclusionReason.NEGATIVE_FEEDBACK: f"feedback {r.feedback.negative} negative / {r.feedback.positive} "
            f"positive exceeds {query.max_negative_feedback_bp} bp negative",
            ExclusionReason.CONTRADICTED: f"{len(r.contradicting)} contradicting / {len(r.supporting)} supporting "
            f"exceeds {query.max_contradiction_bp} bp contradicting",
        }
        return texts.get(reason, reason.value)


def _scope_text(key: ScopeKey) -> str:
    names = ("project", "workspace", "repository", "actor", "role")
    named = [f"{name}={value}" for name, value in zip(names, key, strict=True) if value is not None]
    return "(" + (", ".join(named) or "any") + ")"
