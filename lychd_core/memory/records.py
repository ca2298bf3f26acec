"""Immutable derived memory records.

A record is one revision of a derived claim. Identity is the caller-supplied
``memory_id`` plus ``revision``; the record digest is the sha256 of its canonical
JSON. Observations are integer logical clocks supplied by the caller: nothing in
this package reads the wall clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from lychd_core.digests import canonical_json, sha256_digest
from lychd_core.errors import (
    EmptyScopeError,
    EvidenceConflictError,
    InvalidExpiryError,
    InvalidTransitionError,
    MemoryRecordError,
    MissingSourceEventError,
    NonCanonicalError,
    ScoreOutOfRangeError,
    StaleObservationError,
    UnknownClaimTypeError,
)
from lychd_core.labels import PrivatizationLabel
from lychd_core.memory.canonical import canonical_features, canonical_ids
from lychd_core.memory.checks import (
    MAX_CLAIM_CHARS,
    MAX_COUNT,
    MAX_ITEMS,
    MAX_TOKENS,
    check_bp,
    check_feature_name,
    check_id,
    check_int,
    check_observation,
    check_revision,
    check_sorted_ids,
    check_strictly_ascending,
    check_text,
)
from lychd_core.memory.scope import MemoryScope
from lychd_core.vocabulary import Provenance

_q = encode_basestring  # the exact string encoder json.dumps uses with ensure_ascii=False


class ClaimType(StrEnum):
    """The closed, core-owned vocabulary of what a memory claims."""

    FACT = "fact"
    PREFERENCE = "preference"
    PROCEDURE = "procedure"
    DECISION = "decision"
    LESSON = "lesson"
    WARNING = "warning"


class LifecycleState(StrEnum):
    ACTIVE = "active"
    QUARANTINED = "quarantined"
    EXPIRED = "expired"
    SUPERSEDED = "superseded"

    @property
    def is_terminal(self) -> bool:
        return self in (LifecycleState.EXPIRED, LifecycleState.SUPERSEDED)


_Member = TypeVar("_Member", ClaimType, LifecycleState, Provenance)


def _member_of(
    enum: type[_Member], value: Any, error: type[MemoryRecordError], what: str, known: Iterable[_Member]
) -> _Member:
    try:
        return enum(value)
    except (ValueError, TypeError):
        names = ", ".join(member.value for member in known)
        raise error(f"unknown {what} {value!r}; known: {names}") from None


def claim_type_of(value: Any) -> ClaimType:
    return _member_of(ClaimType, value, UnknownClaimTypeError, "claim type", ClaimType)


def state_of(value: Any) -> LifecycleState:
    return _member_of(LifecycleState, value, InvalidTransitionError, "lifecycle state", LifecycleState)


def provenance_of(value: Any) -> Provenance:
    known = [p for p in Provenance if p is not Provenance.MEMORY]
    provenance = _member_of(Provenance, value, NonCanonicalError, "source provenance", known)
    if provenance is Provenance.MEMORY:
        # The original source must stay visible; "memory" would launder where the claim came from.
        raise NonCanonicalError("source_provenance must name where the claim originally came from, not 'memory'")
    return provenance


@dataclass(frozen=True, slots=True)
class Feedback:
    """Counts of positive and negative feedback on a memory."""

    positive: int = 0
    negative: int = 0

    def __post_init__(self) -> None:
        check_int("feedback.positive", self.positive, 0, MAX_COUNT)
        check_int("feedback.negative", self.negative, 0, MAX_COUNT)


FeaturesInput: TypeAlias = Mapping[str, int] | Iterable[tuple[str, int]]
"""What ``features`` accepts: a ``{name: weight}`` mapping or any collection of pairs."""


def check_features(features: object) -> tuple[tuple[str, int], ...]:
    """Canonical features: ``(name, weight_bp)`` pairs sorted by name, unique, weights 1..10000."""
    if not isinstance(features, tuple) or not all(isinstance(p, tuple) and len(p) == 2 for p in features):
        raise NonCanonicalError(f"features must be a tuple of (name, weight) pairs, got {features!r}")
    if len(features) > MAX_ITEMS:
        raise ScoreOutOfRangeError(f"a record may carry at most {MAX_ITEMS} features, got {len(features)}")
    for name, weight in features:
        check_feature_name("feature", name)
        check_int(f"weight of feature {name!r}", weight, 1, 10_000)
    check_strictly_ascending("feature names", [name for name, _ in features])
    return features


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryRecord:
    """One checked, immutable revision of a derived claim.

    ``source_events``, ``supporting`` and ``contradicting`` take any collection of ids
    (list, tuple, set; any order) and ``features`` a ``{name: weight}`` mapping or any
    collection of pairs: they are stored canonical (sorted, duplicate-free). A feature
    with two weights and an id on both evidence sides are refused. Stored data is read
    back through :meth:`canonical_only`, which refuses anything not already canonical.
    """

    memory_id: str
    revision: int
    scope: MemoryScope
    claim_type: ClaimType
    claim: str
    source_provenance: Provenance
    source_events: tuple[str, ...]
    confidence: int
    token_estimate: int
    created: int
    observed: int
    """Observation at which this revision was written; strictly advances with each revision."""
    supporting: tuple[str, ...] = ()
    contradicting: tuple[str, ...] = ()
    features: tuple[tuple[str, int], ...] = ()
    feedback: Feedback = Feedback()
    reviewed: int | None = None
    expires: int | None = None
    state: LifecycleState = LifecycleState.ACTIVE
    quarantined_at: int | None = None
    superseded_by: str | None = None
    label: PrivatizationLabel | None = None
    """Privacy label of the claim, if known; evidence without one is restricted with unknown lineage."""
    _digest: str | None = field(default=None, init=False, repr=False, compare=False)

    if TYPE_CHECKING:  # what the constructor accepts; the fields above hold it canonical

        def __init__(
            self,
            *,
            memory_id: str,
            revision: int,
            scope: MemoryScope,
            claim_type: ClaimType | str,
            claim: str,
            source_provenance: Provenance | str,
            source_events: Iterable[str],
            confidence: int,
            token_estimate: int,
            created: int,
            observed: int,
            supporting: Iterable[str] = ...,
            contradicting: Iterable[str] = ...,
            features: FeaturesInput = ...,
            feedback: Feedback = ...,
            reviewed: int | None = ...,
            expires: int | None = ...,
            state: LifecycleState | str = ...,
            quarantined_at: int | None = ...,
            superseded_by: str | None = ...,
            label: PrivatizationLabel | None = ...,
        ) -> None: ...

    def __post_init__(self) -> None:
        check_id("memory_id", self.memory_id)
        check_revision(f"revision of {self.memory_id!r}", self.revision)
        if not isinstance(self.scope, MemoryScope):
            raise EmptyScopeError(f"scope of {self.memory_id!r} must be a MemoryScope, got {self.scope!r}")
        if self.scope.is_empty:
            raise EmptyScopeError(
                f"memory {self.memory_id!r} names no scope; set at least one of project, workspace, repository, "
                "actor or role"
            )
        object.__setattr__(self, "claim_type", claim_type_of(self.claim_type))
        object.__setattr__(self, "source_provenance", provenance_of(self.source_provenance))
        object.__setattr__(self, "state", state_of(self.state))
        check_text(f"claim of {self.memory_id!r}", self.claim, MAX_CLAIM_CHARS)
        for name in ("source_events", "supporting", "contradicting"):
            object.__setattr__(self, name, canonical_ids(name, getattr(self, name)))
        object.__setattr__(self, "features", canonical_features(self.features))
        if self.source_events == ():
            raise MissingSourceEventError(f"memory {self.memory_id!r} names no source event; a derived claim needs one")
        check_sorted_ids("source_events", self.source_events)
        check_sorted_ids("supporting", self.supporting)
        check_sorted_ids("contradicting", self.contradicting)
        overlap = sorted(set(self.supporting) & set(self.contradicting))
        if overlap:
            raise EvidenceConflictError(
                f"memory {self.memory_id!r} lists {overlap} as both supporting and contradicting; "
                "each evidence item belongs to one side"
            )
        if self.label is not None and not isinstance(self.label, PrivatizationLabel):
            raise NonCanonicalError(f"label of {self.memory_id!r} must be a PrivatizationLabel, got {self.label!r:.60}")
        check_bp("confidence", self.confidence)
        check_int("token_estimate", self.token_estimate, 1, MAX_TOKENS)
        check_features(self.features)
        if not isinstance(self.feedback, Feedback):
            raise NonCanonicalError(f"feedback must be a Feedback, got {self.feedback!r}")
        self._check_observations()
        self._check_state()

    def _check_observations(self) -> None:
        created = check_observation("created", self.created)
        observed = check_observation("observed", self.observed)
        if observed < created:
            raise StaleObservationError(
                f"memory {self.memory_id!r} revision {self.revision} observed at {observed}, before its creation "
                f"at {created}"
            )
        if self.reviewed is not None:
            check_observation("reviewed", self.reviewed)
            if not created <= self.reviewed <= observed:
                raise StaleObservationError(
                    f"memory {self.memory_id!r} reviewed at {self.reviewed}; a review lies between creation "
                    f"({created}) and the revision's observation ({observed})"
                )
        if self.expires is not None:
            check_observation("expires", self.expires)
            if self.expires <= created:
                raise InvalidExpiryError(
                    f"memory {self.memory_id!r} expires at {self.expires}, not after its creation at {created}"
                )

    def _check_state(self) -> None:
        quarantined = self.state is LifecycleState.QUARANTINED
        if quarantined != (self.quarantined_at is not None):
            raise InvalidTransitionError(
                f"memory {self.memory_id!r}: quarantined_at must be set exactly when the state is quarantined "
                f"(state {self.state.value}, quarantined_at {self.quarantined_at!r})"
            )
        if self.quarantined_at is not None:
            check_observation("quarantined_at", self.quarantined_at)
            if not self.created <= self.quarantined_at <= self.observed:
                raise StaleObservationError(
                    f"memory {self.memory_id!r} quarantined at {self.quarantined_at}, outside creation "
                    f"({self.created}) .. observation ({self.observed})"
                )
        superseded = self.state is LifecycleState.SUPERSEDED
        if superseded != (self.superseded_by is not None):
            raise InvalidTransitionError(
                f"memory {self.memory_id!r}: superseded_by must name the successor exactly when the state is "
                f"superseded (state {self.state.value}, superseded_by {self.superseded_by!r})"
            )
        if self.superseded_by is not None:
            check_id("superseded_by", self.superseded_by)
            if self.superseded_by == self.memory_id:
                raise InvalidTransitionError(f"memory {self.memory_id!r} cannot supersede itself")

    @classmethod
    def canonical_only(cls, **fields: Any) -> MemoryRecord:
        """Build a record from stored (replayed) data: its collections must already be
        canonical tuples, since non-canonical stored data means corruption
        (``NonCanonicalError``)."""
        for name in ("source_events", "supporting", "contradicting"):
            if name in fields:
                check_sorted_ids(name, fields[name])
        if "features" in fields:
            check_features(fields["features"])
        return cls(**fields)

    # --- identity ---------------------------------------------------------------

    @property
    def last_confirmed(self) -> int:
        """The last review, or creation when never reviewed."""
        return self.created if self.reviewed is None else self.reviewed

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON form: every field explicit, collections in canonical order."""
        return {
            "id": self.memory_id,
            "revision": self.revision,
            "scope": self.scope.to_json(),
            "claim_type": self.claim_type.value,
            "claim": self.claim,
            "source_provenance": self.source_provenance.value,
            "source_events": list(self.source_events),
            "supporting": list(self.supporting),
            "contradicting": list(self.contradicting),
            "confidence": self.confidence,
            "features": dict(self.features),
            "token_estimate": self.token_estimate,
            "feedback": {"positive": self.feedback.positive, "negative": self.feedback.negative},
            "created": self.created,
            "observed": self.observed,
            "reviewed": self.reviewed,
            "expires": self.expires,
            "state": self.state.value,
            "quarantined_at": self.quarantined_at,
            "superseded_by": self.superseded_by,
        } | ({} if self.label is None else {"label": self.label.to_json()})

    def canonical_text(self) -> str:
        """Canonical JSON of :meth:`to_json`, written directly in sorted-key order.

        Identical to ``lychd_core.digests.canonical_json(self.to_json())`` decoded (a property
        test holds it so). The constructor has proved every value is a str, int or None, so
        this hot path (ingest, digests) skips building and re-checking a dict.
        """
        q = _q
        scope, feedback = self.scope, self.feedback
        features = ",".join([f"{q(name)}:{weight}" for name, weight in self.features])
        null = "null"
        label = "" if self.label is None else f'"label":{canonical_json(self.label.to_json()).decode()},'
        return (
            f'{{"claim":{q(self.claim)},"claim_type":{q(self.claim_type)},"confidence":{self.confidence},'
            f'"contradicting":[{",".join(map(q, self.contradicting))}],"created":{self.created},'
            f'"expires":{null if self.expires is None else self.expires},"features":{{{features}}},'
            f'"feedback":{{"negative":{feedback.negative},"positive":{feedback.positive}}},'
            f'"id":{q(self.memory_id)},{label}"observed":{self.observed},'
            f'"quarantined_at":{null if self.quarantined_at is None else self.quarantined_at},'
            f'"reviewed":{null if self.reviewed is None else self.reviewed},"revision":{self.revision},'
            f'"scope":{{"actor":{null if scope.actor is None else q(scope.actor)},'
            f'"project":{null if scope.project is None else q(scope.project)},'
            f'"repository":{null if scope.repository is None else q(scope.repository)},'
            f'"role":{null if scope.role is None else q(scope.role)},'
            f'"workspace":{null if scope.workspace is None else q(scope.workspace)}}},'
            f'"source_events":[{",".join(map(q, self.source_events))}],'
            f'"source_provenance":{q(self.source_provenance)},"state":{q(self.state)},'
            f'"superseded_by":{null if self.superseded_by is None else q(self.superseded_by)},'
            f'"supporting":[{",".join(map(q, self.supporting))}],"token_estimate":{self.token_estimate}}}'
        )

    def canonical_bytes(self) -> bytes:
        """UTF-8 bytes of :meth:`canonical_text`: what the digest is taken over."""
        return self.canonical_text().encode("utf-8")

    @property
    def digest(self) -> str:
        """``sha256:<hex>`` of the canonical JSON; computed once per object."""
        return self._digest if self._digest is not None else self.encoded()[1]

    def encoded(self) -> tuple[str, str]:
        """Canonical text and digest, serializing once (the digest is cached on the object)."""
        try:
            text = self.canonical_text()
            data = text.encode("utf-8") if self._digest is None else b""
        except UnicodeEncodeError as exc:  # a lone surrogate outside the claim (a label name): typed
            raise NonCanonicalError(
                f"memory {self.memory_id!r} holds text that is not valid Unicode (a lone surrogate, "
                f"{exc.object[exc.start : exc.end]!r}); surrogates must come in pairs"
            ) from None
        if self._digest is None:
            object.__setattr__(self, "_digest", sha256_digest(data))
        assert self._digest is not None
        return text, self._digest

    def identity(self) -> tuple[str, int, str]:
        return (self.memory_id, self.revision, self.digest)


def adopt_digest(record: MemoryRecord, digest: str) -> MemoryRecord:
    """Attach a digest the store computed when it wrote ``record`` (saves recomputing on rebuild)."""
    object.__setattr__(record, "_digest", digest)
    return record
