"""Running the configured ranking profiles and combining their scores.

Each profile scores every candidate in integer basis points. The combined score is the
weighted mean, in integers: ``sum(weight * score) // sum(weight)``. Candidates are
ordered by combined score, then by whether the query names their file, then by node id;
a candidate's *relevance* (what selection orders by) follows from that order. Anything
a profile gets wrong (raising, a float, an out-of-range score, an unknown id) is a typed
error that the caller turns into an explained fallback to the unranked order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from lychd_core.errors import (
    InvalidScoreError,
    RankingError,
    RankingProfileFailed,
    RankingQueryError,
    UnknownCandidateError,
)
from lychd_core.families import MAX_SCORE, RankingCandidate, RankingProfile, RankingQuery, Score
from lychd_core.gcpause import cyclic_gc_paused
from lychd_core.ranking.terms import bound_word_cache, path_terms, terms

MAX_REASON_CHARS = 300


@dataclass(frozen=True, slots=True)
class WeightedProfile:
    """A resolved ranking profile pin: the object, its pin text, weight and validated options."""

    pin: str
    weight: int
    profile: RankingProfile
    options: BaseModel


@dataclass(frozen=True, slots=True)
class RankedCandidate:
    """One candidate's place: 1-based rank (0 when unranked), combined score and each profile's part."""

    node_id: str
    path: str
    rank: int
    score: int
    components: Mapping[str, int]
    reasons: Mapping[str, str]
    named_in_query: bool = False

    @property
    def reason(self) -> str:
        """The profiles' reasons, joined, for a person to read."""
        return "; ".join(f"{pin}: {text}" for pin, text in self.reasons.items() if text)

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node_id,
            "path": self.path,
            "rank": self.rank,
            "score": self.score,
            "components": dict(self.components),
            "reasons": dict(self.reasons),
            "named_in_query": self.named_in_query,
        }


@dataclass(frozen=True, slots=True)
class RankingReport:
    """The ranking of one assembly: entries in rank order, or why the unranked order was kept."""

    profiles: tuple[tuple[str, int], ...]
    """``(pin, weight)`` of each configured profile."""
    entries: tuple[RankedCandidate, ...] = ()
    fallback: str | None = None
    """Why ranking fell back to the unranked order (``None`` when it ranked)."""
    by_node: dict[str, RankedCandidate] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.by_node.update((entry.node_id, entry) for entry in self.entries)

    @property
    def ranked(self) -> bool:
        return self.fallback is None

    def relevance(self, node_id: str) -> int:
        """Selection's relevance for ``node_id``: higher first, 0 for unscored or unranked."""
        entry = self.by_node.get(node_id)
        if entry is None or not self.ranked or entry.score == 0:
            return 0
        return len(self.entries) - entry.rank + 1

    def to_json(self) -> dict[str, Any]:
        return {
            "profiles": [{"pin": pin, "weight": weight} for pin, weight in self.profiles],
            "ranked": self.ranked,
            "fallback": self.fallback,
            "entries": [entry.to_json() for entry in self.entries],
        }


def named_in_query(path: str, query_terms: frozenset[str]) -> bool:
    """Whether the query names this file: its stem (not ``__init__``) is one of the query's terms."""
    parts = path_terms(path)
    return bool(parts) and parts[-1] in query_terms and parts[-1] != "init"


def check_scores(pin: str, scores: object, known: Mapping[str, RankingCandidate]) -> dict[str, Score]:
    """``scores`` as returned by profile ``pin``, verified; a typed error names the first problem."""
    if not isinstance(scores, Mapping):
        raise InvalidScoreError(
            f"{pin} returned {type(scores).__name__}; rank() must return a mapping of node id to Score"
        )
    checked: dict[str, Score] = {}
    for node_id, score in scores.items():
        if node_id not in known:
            raise UnknownCandidateError(f"{pin} scored {node_id!r}, which is not one of its {len(known)} candidates")
        if not isinstance(score, Score):
            raise InvalidScoreError(f"{pin} scored {node_id!r} with a {type(score).__name__}; return a Score")
        value = score.value
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidScoreError(
                f"{pin} scored {node_id!r} with {type(value).__name__} {value!r}; scores are integer basis points"
            )
        if not 0 <= value <= MAX_SCORE:
            raise InvalidScoreError(f"{pin} scored {node_id!r} {value}, outside 0..{MAX_SCORE}")
        if not isinstance(score.reason, str) or len(score.reason) > MAX_REASON_CHARS:
            raise InvalidScoreError(
                f"{pin} gave {node_id!r} a reason that is not a string of at most {MAX_REASON_CHARS} characters"
            )
        checked[node_id] = score
    return checked


def rank(
    profiles: Sequence[WeightedProfile], query: RankingQuery, candidates: Sequence[RankingCandidate]
) -> RankingReport:
    """Rank ``candidates``; raises a ``RankingError`` when a profile misbehaves or the query is empty."""
    bound_word_cache()
    # The ranking builds acyclic objects by the ten thousand (postings, scores, entries): full
    # cyclic collections during it freed nothing, re-walked every live object, and ran twice
    # per 10k ranking but in few 1k ones. benchmarks/bench_ranking.py: 10k / 1k 12.9 -> 11.3.
    with cyclic_gc_paused():
        return _rank(profiles, query, candidates)


def _rank(
    profiles: Sequence[WeightedProfile], query: RankingQuery, candidates: Sequence[RankingCandidate]
) -> RankingReport:
    pins = tuple((p.pin, p.weight) for p in profiles)
    if not query.text.strip():
        raise RankingQueryError("the query is empty or whitespace; nothing to rank against")
    known = {c.node_id: c for c in candidates}
    if len(known) != len(candidates):
        raise RankingError("candidate node ids must be unique")
    frozen = tuple(candidates)
    checked: list[tuple[WeightedProfile, dict[str, Score]]] = []
    for weighted in profiles:
        try:
            raw = weighted.profile.rank(query, frozen, weighted.options)
        except RankingError:
            raise
        except Exception as exc:  # a third-party profile: anything it raises is its failure, reported
            raise RankingProfileFailed(f"{weighted.pin} raised {type(exc).__name__}: {exc}") from exc
        checked.append((weighted, check_scores(weighted.pin, raw, known)))
    total_weight = sum(p.weight for p in profiles) or 1
    query_terms = frozenset(terms(query.text))
    # One pass per candidate, touching only its own scores: no table of every candidate's
    # parts to look up again (at 10k files such tables cost more per file than at 1k).
    rows: list[tuple[int, bool, str, int]] = []
    rest: list[int] = []
    parts_of: list[tuple[dict[str, int], dict[str, str], int, bool]] = []
    for index, candidate in enumerate(frozen):
        parts: dict[str, int] = {}
        why: dict[str, str] = {}
        weighted_sum = 0
        for weighted, scores in checked:
            score = scores.get(candidate.node_id)
            value = 0 if score is None else score.value
            parts[weighted.pin] = value
            weighted_sum += value * weighted.weight
            if value and score is not None and score.reason:
                why[weighted.pin] = score.reason
        combined = weighted_sum // total_weight
        named = named_in_query(candidate.path, query_terms)
        parts_of.append((parts, why, combined, named))
        if combined or named:
            rows.append((-combined, not named, candidate.node_id, index))
        else:  # the usual majority: ordered by node id alone, a plain string sort
            rest.append(index)
    rows.sort()
    rest.sort(key=lambda index: frozen[index].node_id)
    entries_list = []
    for position, index in enumerate([row[3] for row in rows] + rest, start=1):
        parts, why, combined, named = parts_of[index]
        candidate = frozen[index]
        entries_list.append(RankedCandidate(candidate.node_id, candidate.path, position, combined, parts, why, named))
    entries = tuple(entries_list)
    if not any(entry.score for entry in entries):
        return RankingReport(pins, entries, "no query term matched any candidate; the unranked order is kept")
    return RankingReport(pins, entries)


def rank_or_fallback(
    profiles: Sequence[WeightedProfile], query: RankingQuery, candidates: Sequence[RankingCandidate]
) -> RankingReport:
    """:func:`rank`, with any ``RankingError`` turned into the unranked order, explained."""
    try:
        return rank(profiles, query, candidates)
    except RankingError as exc:
        pins = tuple((p.pin, p.weight) for p in profiles)
        return RankingReport(
            pins, unranked(profiles, candidates), f"{type(exc).__name__}: {exc}; the unranked order is kept"
        )


def unranked(
    profiles: Sequence[WeightedProfile], candidates: Sequence[RankingCandidate]
) -> tuple[RankedCandidate, ...]:
    """Every candidate (the first of a repeated node id) in the unranked order, node id order,
    scored 0 by every profile: what a fallback keeps, listed as a ranking that matched nothing is."""
    first = {c.node_id: c for c in reversed(candidates)}
    zero = {p.pin: 0 for p in profiles}
    return tuple(
        RankedCandidate(node_id, first[node_id].path, position, 0, dict(zero), {}, False)
        for position, node_id in enumerate(sorted(first), start=1)
    )
