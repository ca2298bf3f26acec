"""What a caller asks memory for: scope, now, filters, limits and ranking weights."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lychd_core.digests import json_digest
from lychd_core.errors import InvalidQueryError
from lychd_core.memory.canonical import canonical_feature_names
from lychd_core.memory.checks import (
    MAX_BP,
    MAX_COUNT,
    MAX_ITEMS,
    MAX_OBSERVATION,
    check_bp,
    check_feature_names,
    check_int,
    check_observation,
)
from lychd_core.memory.records import ClaimType, claim_type_of
from lychd_core.memory.scope import MemoryScope, ScopeKey, ScopePolicy
from lychd_core.roles import RoleProfile

COMPONENTS: tuple[str, ...] = ("scope", "relevance", "confidence", "evidence", "recency", "feedback")


@dataclass(frozen=True, slots=True)
class RankingWeights:
    """Weights of the six ranking components, in basis points summing to exactly 10,000."""

    scope: int = 2_000
    relevance: int = 3_000
    confidence: int = 2_000
    evidence: int = 1_000
    recency: int = 1_000
    feedback: int = 1_000

    def __post_init__(self) -> None:
        for name in COMPONENTS:
            check_bp(f"weight {name}", getattr(self, name))
        total = sum(self.as_tuple())
        if total != MAX_BP:
            raise InvalidQueryError(
                f"ranking weights must sum to exactly {MAX_BP} basis points, got {total} "
                f"({', '.join(f'{n}={getattr(self, n)}' for n in COMPONENTS)})"
            )

    def as_tuple(self) -> tuple[int, int, int, int, int, int]:
        return (self.scope, self.relevance, self.confidence, self.evidence, self.recency, self.feedback)

    def to_json(self) -> dict[str, int]:
        return dict(zip(COMPONENTS, self.as_tuple(), strict=True))


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryQuery:
    """One retrieval request. ``now`` is the caller's current logical observation.

    ``role_profile`` turns on role visibility: a memory is visible only when the role
    sees memory evidence both as memory and under the memory's original provenance. The
    asking role stays out of the scope (as in the reference): under ``exact`` a scope
    without a role matches only role-less records; under ``include-broader`` records
    scoped to the profile's role apply too (see :meth:`scope_keys`). A scope naming
    another role than the profile's is refused. Without a profile the role visibility
    filter does not apply (inspection use).
    """

    scope: MemoryScope
    now: int
    role_profile: RoleProfile | None = None
    claim_types: frozenset[ClaimType] = frozenset()
    """Empty means every claim type."""
    features: tuple[str, ...] = ()
    """Relevance features (any collection; stored sorted, unique); they only rank."""
    required_features: tuple[str, ...] = ()
    """Features a record must carry (any collection; stored sorted, unique); they filter."""
    min_confidence: int = 0
    min_supporting: int = 0
    max_review_age: int | None = None
    """Exclude records whose last review (or creation) is more than this many observations before ``now``."""
    max_negative_feedback_bp: int = 5_000
    """Exclude records whose negative share of feedback exceeds this many basis points."""
    max_contradiction_bp: int = 5_000
    """Exclude records whose contradicting share of evidence exceeds this many basis points."""
    limit: int = 10
    max_tokens: int | None = None
    recency_horizon: int = 1_000
    """Observations after which the recency component reaches zero."""
    weights: RankingWeights = field(default_factory=RankingWeights)
    scope_policy: ScopePolicy = ScopePolicy.INCLUDE_BROADER
    """``include-broader`` (default): broader record scopes apply too; ``exact``: only equal scopes."""

    if TYPE_CHECKING:  # what the constructor accepts; the fields above hold it canonical

        def __init__(
            self,
            *,
            scope: MemoryScope,
            now: int,
            role_profile: RoleProfile | None = ...,
            claim_types: Iterable[ClaimType | str] = ...,
            features: Iterable[str] = ...,
            required_features: Iterable[str] = ...,
            min_confidence: int = ...,
            min_supporting: int = ...,
            max_review_age: int | None = ...,
            max_negative_feedback_bp: int = ...,
            max_contradiction_bp: int = ...,
            limit: int = ...,
            max_tokens: int | None = ...,
            recency_horizon: int = ...,
            weights: RankingWeights = ...,
            scope_policy: ScopePolicy | str = ...,
        ) -> None: ...

    def __post_init__(self) -> None:
        if not isinstance(self.scope, MemoryScope):
            raise InvalidQueryError(f"query scope must be a MemoryScope, got {self.scope!r}")
        check_observation("query now", self.now)
        if self.role_profile is not None:
            if not isinstance(self.role_profile, RoleProfile):
                raise InvalidQueryError(f"role_profile must be a RoleProfile, got {self.role_profile!r}")
            if self.scope.role is not None and self.scope.role != self.role_profile.role:
                raise InvalidQueryError(
                    f"query scope role {self.scope.role!r} differs from the role profile {self.role_profile.role!r}; "
                    "set scope.role to the profile's role"
                )
        if isinstance(self.claim_types, str | bytes) or not isinstance(self.claim_types, Iterable):
            raise InvalidQueryError(
                f"claim_types must be a collection of claim types, got {type(self.claim_types).__name__}"
            )
        object.__setattr__(self, "claim_types", frozenset(claim_type_of(t) for t in self.claim_types))
        object.__setattr__(self, "features", canonical_feature_names("query features", self.features))
        object.__setattr__(
            self, "required_features", canonical_feature_names("query required_features", self.required_features)
        )
        check_feature_names("query features", self.features)
        check_feature_names("query required_features", self.required_features)
        check_bp("min_confidence", self.min_confidence)
        check_int("min_supporting", self.min_supporting, 0, MAX_ITEMS)
        if self.max_review_age is not None:
            check_observation("max_review_age", self.max_review_age)
        check_bp("max_negative_feedback_bp", self.max_negative_feedback_bp)
        check_bp("max_contradiction_bp", self.max_contradiction_bp)
        check_int("limit", self.limit, 1, MAX_COUNT)
        if self.max_tokens is not None:
            check_int("max_tokens", self.max_tokens, 1, MAX_COUNT)
        check_int("recency_horizon", self.recency_horizon, 1, MAX_OBSERVATION)
        try:
            object.__setattr__(self, "scope_policy", ScopePolicy(self.scope_policy))
        except ValueError:
            known = ", ".join(policy.value for policy in ScopePolicy)
            raise InvalidQueryError(f"unknown scope_policy {self.scope_policy!r}; known: {known}") from None
        if not isinstance(self.weights, RankingWeights):
            raise InvalidQueryError(f"weights must be RankingWeights, got {self.weights!r}")

    def scope_keys(self) -> frozenset[ScopeKey]:
        """Every record scope key this query admits. Under ``include-broader`` a scope without
        a role is matched as if it named the profile's role, so the asking role's own memories
        apply beside role-less ones; under ``exact`` the scope is matched as given."""
        scope = self.scope
        if self.scope_policy is ScopePolicy.INCLUDE_BROADER and scope.role is None and self.role_profile:
            scope = dataclasses.replace(scope, role=self.role_profile.role)
        return scope.compatible_keys(self.scope_policy)

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope.to_json(),
            "now": self.now,
            "role_profile": None if self.role_profile is None else self.role_profile.to_json(),
            "claim_types": sorted(t.value for t in self.claim_types),
            "features": list(self.features),
            "required_features": list(self.required_features),
            "min_confidence": self.min_confidence,
            "min_supporting": self.min_supporting,
            "max_review_age": self.max_review_age,
            "max_negative_feedback_bp": self.max_negative_feedback_bp,
            "max_contradiction_bp": self.max_contradiction_bp,
            "limit": self.limit,
            "max_tokens": self.max_tokens,
            "recency_horizon": self.recency_horizon,
            "weights": self.weights.to_json(),
            "scope_policy": self.scope_policy.value,
        }

    @property
    def digest(self) -> str:
        return json_digest(self.to_json())
