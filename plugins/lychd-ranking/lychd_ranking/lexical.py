"""``lexical`` revisions 1 and 2: BM25 over each candidate's projected text, path and referenced names.

The index is built once per call (once per assembly), with postings per term, so
scoring costs what the query's terms occur, not candidates x terms. Identifiers are
split (snake_case, CamelCase, dotted names) and a small stop list is dropped. Path
terms count ``path_weight`` times. Raw BM25 is a float; it is scaled to basis points
against the best candidate and rounded before it leaves the profile.

Revision 2 (the default) adds pseudo-relevance feedback for vague queries: when the best
file scores within ``feedback_gap`` percent of the second (no file stands out), the terms
of the names the best ``feedback_files`` files define, weighted by how much of those
names they make up and how rare they are among all candidates, expand the query: the
``feedback_terms`` best count ``feedback_weight`` percent of a query term. A query of
common words (``make``, ``allow``, ``type``) then also finds the files that use what the
files it matches best define (RM3, Lavrenko and Croft 2001; selective expansion).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from lychd_core.families import MAX_SCORE, RankingCandidate, RankingQuery, Score
from lychd_core.ranking.terms import path_terms, terms, unique, word_terms

MAX_QUERY_TERMS = 4_096
"""Distinct query terms used (first occurrences): a 100k-character query costs no more than this."""


class LexicalOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    k1: int = Field(default=120, ge=0, le=1000, strict=True, description="BM25 k1, in hundredths.", examples=[120])
    b: int = Field(default=75, ge=0, le=100, strict=True, description="BM25 b, in hundredths.", examples=[75])
    path_weight: int = Field(
        default=3, ge=0, le=20, strict=True, description="How many times path terms count.", examples=[3]
    )
    history_weight: int = Field(
        default=50, ge=0, le=100, strict=True, description="Weight of history terms, in percent.", examples=[50]
    )
    feedback_files: int = Field(
        default=8,
        ge=0,
        le=100,
        strict=True,
        description="Revision 2: files whose names expand a vague query.",
        examples=[8],
    )
    feedback_terms: int = Field(
        default=20, ge=0, le=200, strict=True, description="Revision 2: expansion terms kept.", examples=[20]
    )
    feedback_weight: int = Field(
        default=4,
        ge=0,
        le=100,
        strict=True,
        description="Revision 2: an expansion term's weight, in percent.",
        examples=[4],
    )
    feedback_gap: int = Field(
        default=80,
        ge=0,
        le=100,
        strict=True,
        description="Revision 2: expand only when the second file scores at least this percent of the best.",
        examples=[80],
    )


NameMemo = dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
"""A referenced name's terms, and the query's terms among them: each name split once per ranking."""


def query_terms_of(
    candidate: RankingCandidate,
    path_weight: int,
    weights: Mapping[str, float],
    names: NameMemo,
    kept: list[tuple[str, ...]] | None = None,
) -> tuple[int, list[str]]:
    """(how many terms the candidate has, the query's terms among them with repeats).

    Its terms are those of its text, its path (``path_weight`` times) and the names its
    source references. ``names`` is this ranking's memo of referenced names: a name is
    shared by the many files that use it, and its terms are checked against the query
    once, not once per file (at 10k files, touching every name's terms per file made the
    cost per file grow with the tree). ``kept`` (revision 2) receives the text and path
    terms, so feedback can count other terms without splitting the text again.
    """
    found = terms(candidate.text)
    found.extend(path_terms(candidate.path) * path_weight)
    if kept is not None:
        # a tuple of strings leaves the garbage collector's watch; 10k kept lists slowed it
        kept.append(tuple(found))
    length = len(found)
    hits = [term for term in found if term in weights]
    for name in _references(candidate):
        known = names.get(name)
        if known is None:
            parts = tuple(word_terms(name))
            known = names[name] = (parts, tuple(term for term in parts if term in weights))
        length += len(known[0])
        if known[1]:
            hits.extend(known[1])
    return length, hits


def _symbols(candidate: RankingCandidate, key: str) -> list[str]:
    facts = candidate.facts
    symbols = facts.get("symbols") if isinstance(facts, dict) else None
    names = symbols.get(key) if isinstance(symbols, dict) else None
    return [name for name in names if isinstance(name, str)] if isinstance(names, list) else []


def _references(candidate: RankingCandidate) -> list[str]:
    return _symbols(candidate, "references")


Postings = dict[str, list[tuple[int, int]]]


def bm25(
    postings: Postings, lengths: Mapping[int, int], weights: Mapping[str, float], size: int, k1: float, b: float
) -> tuple[list[float], dict[int, list[tuple[float, str]]]]:
    """Raw BM25 per candidate, and each one's gains per term. Statistics over the candidates
    sharing a query term only: a file unrelated to the query changes no score, so adding one
    never reorders the relevant ones."""
    n = len(lengths)
    average = (sum(lengths.values()) / n) or 1.0
    raw = [0.0] * size
    matched: dict[int, list[tuple[float, str]]] = {}
    for term in sorted(postings):  # a fixed order: float sums come out the same every time
        hits = postings[term]
        if not hits:
            continue
        idf = math.log((n - len(hits) + 0.5) / (len(hits) + 0.5) + 1.0)
        for index, tf in hits:
            norm = tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[index] / average))
            gain = weights[term] * idf * norm
            raw[index] += gain
            matched.setdefault(index, []).append((gain, term))
    return raw, matched


FEEDBACK_POOL = 300
"""Expansion terms whose rarity is counted (the likeliest by the feedback files' names)."""


def expansion(
    candidates: Sequence[RankingCandidate],
    raw: Sequence[float],
    weights: Mapping[str, float],
    opts: LexicalOptions,
) -> dict[str, float]:
    """The likeliest expansion terms of a vague query by the best files' defined names, with
    their likelihood (revision 2); none when the best file stands out."""
    order = sorted(range(len(raw)), key=lambda index: -raw[index])
    best = raw[order[0]] if order else 0.0
    if best <= 0 or (len(order) > 1 and raw[order[1]] * 100 < opts.feedback_gap * best):
        return {}
    likely: dict[str, float] = {}
    for index in order[: opts.feedback_files]:
        if raw[index] <= 0:  # a file the query does not match says nothing about it
            break
        defined = Counter(term for name in _symbols(candidates[index], "defines") for term in word_terms(name))
        total = sum(defined.values()) or 1
        for term, count in defined.items():
            if term not in weights:
                likely[term] = likely.get(term, 0.0) + count / total * raw[index] / best
    pool = sorted(likely, key=lambda term: (-likely[term], term))[:FEEDBACK_POOL]
    return {term: likely[term] for term in pool}


def feedback_postings(
    candidates: Sequence[RankingCandidate], kept: Sequence[tuple[str, ...]], pool: Sequence[str], split: NameMemo
) -> Postings:
    """Each pool term's (candidate, count) over every candidate's text, path and referenced
    names; ``split`` is the first pass's memo, which holds every referenced name's terms."""
    wanted = frozenset(pool)
    postings: Postings = {term: [] for term in pool}
    names: dict[str, tuple[str, ...]] = {}  # a name's pool terms, once per name as in the first pass
    for index, (candidate, found) in enumerate(zip(candidates, kept, strict=True)):
        hits = [term for term in found if term in wanted]
        for name in _references(candidate):
            known = names.get(name)
            if known is None:
                known = names[name] = tuple(term for term in split[name][0] if term in wanted)
            if known:
                hits.extend(known)
        for term, count in Counter(hits).items():
            postings[term].append((index, count))
    return postings


class LexicalProfile:
    """Revision 1 is plain BM25; 2 (the default) adds feedback for vague queries."""

    name = "lexical"
    options_model = LexicalOptions

    def __init__(self, revision: int = 2) -> None:
        if revision not in (1, 2):
            raise ValueError(f"lexical has revisions 1 and 2, not {revision}")
        self.revision = revision

    def rank(
        self, query: RankingQuery, candidates: tuple[RankingCandidate, ...], options: BaseModel
    ) -> Mapping[str, Score]:
        opts = options if isinstance(options, LexicalOptions) else LexicalOptions.model_validate(options.model_dump())
        weights: dict[str, float] = {}
        for term in unique(terms(query.text))[:MAX_QUERY_TERMS]:
            weights[term] = 1.0
        if opts.history_weight:
            for term in unique(terms(query.history))[:MAX_QUERY_TERMS]:
                weights.setdefault(term, opts.history_weight / 100)
        if not weights or not candidates:
            return {}
        feedback = self.revision >= 2 and opts.feedback_files and opts.feedback_terms and opts.feedback_weight
        kept: list[tuple[str, ...]] | None = [] if feedback else None
        postings: Postings = {term: [] for term in weights}
        lengths: dict[int, int] = {}
        every: list[int] = []
        names: NameMemo = {}
        for index, candidate in enumerate(candidates):
            length, found = query_terms_of(candidate, opts.path_weight, weights, names, kept)
            every.append(length)
            # Count only the query's terms: a Counter of every term would build one hash
            # table per file, whose cost grows with the vocabulary, not just the file.
            counts = Counter(found)
            if counts:
                lengths[index] = length
            for term, count in counts.items():
                postings[term].append((index, count))
        if not lengths:
            return {}
        k1, b = opts.k1 / 100, opts.b / 100
        raw, matched = bm25(postings, lengths, weights, len(candidates), k1, b)
        if kept is not None:
            first = (postings, lengths, weights, names)
            raw, matched = self._expanded(candidates, kept, every, raw, matched, first, opts)
        return _scores(candidates, raw, matched)

    def _expanded(
        self,
        candidates: tuple[RankingCandidate, ...],
        kept: list[tuple[str, ...]],
        every: list[int],
        raw: list[float],
        matched: dict[int, list[tuple[float, str]]],
        first: tuple[Postings, dict[int, int], dict[str, float], NameMemo],
        opts: LexicalOptions,
    ) -> tuple[list[float], dict[int, list[tuple[float, str]]]]:
        """BM25 again with the feedback terms added, when the query is vague enough to expand."""
        postings, lengths, weights, split = first
        pool = expansion(candidates, raw, weights, opts)
        if not pool:
            return raw, matched
        found = feedback_postings(candidates, kept, list(pool), split)
        size = len(candidates)
        # likely in the best files' names, rare among all files: what sets those files apart
        value = {term: pool[term] * math.log(1 + size / len(found[term])) for term in pool if found[term]}
        chosen = sorted(value, key=lambda term: (-value[term], term))[: opts.feedback_terms]
        weights = {**weights, **{term: opts.feedback_weight / 100 for term in chosen}}
        postings = {**postings, **{term: found[term] for term in chosen}}
        lengths = dict(lengths)
        for term in chosen:
            for index, _ in found[term]:
                lengths[index] = every[index]
        return bm25(postings, lengths, weights, size, opts.k1 / 100, opts.b / 100)


def _scores(
    candidates: tuple[RankingCandidate, ...], raw: list[float], matched: dict[int, list[tuple[float, str]]]
) -> dict[str, Score]:
    best = max(raw)
    if best <= 0:
        return {}
    scores: dict[str, Score] = {}
    for index, value in enumerate(raw):
        points = round(MAX_SCORE * value / best)
        if points:
            top = [term for _, term in sorted(matched[index], key=lambda item: (-item[0], item[1]))[:5]]
            scores[candidates[index].node_id] = Score(points, "matched " + ", ".join(top))
    return scores
