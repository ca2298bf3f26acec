"""``lexical`` revision 1: BM25 over each candidate's projected text, path and referenced names.

The index is built once per call (once per assembly), with postings per term, so
scoring costs what the query's terms occur, not candidates x terms. Identifiers are
split (snake_case, CamelCase, dotted names) and a small stop list is dropped. Path
terms count ``path_weight`` times. Raw BM25 is a float; it is scaled to basis points
against the best candidate and rounded before it leaves the profile.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping

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


def query_terms_of(
    candidate: RankingCandidate,
    path_weight: int,
    weights: Mapping[str, float],
    names: dict[str, tuple[int, tuple[str, ...]]],
) -> tuple[int, list[str]]:
    """(how many terms the candidate has, the query's terms among them with repeats).

    Its terms are those of its text, its path (``path_weight`` times) and the names its
    source references. ``names`` is this ranking's memo of referenced names: a name is
    shared by the many files that use it, and its terms are checked against the query
    once, not once per file (at 10k files, touching every name's terms per file made the
    cost per file grow with the tree).
    """
    found = terms(candidate.text)
    found.extend(path_terms(candidate.path) * path_weight)
    length = len(found)
    hits = [term for term in found if term in weights]
    facts = candidate.facts
    symbols = facts.get("symbols") if isinstance(facts, dict) else None
    references = symbols.get("references") if isinstance(symbols, dict) else None
    if isinstance(references, list):
        for name in references:
            if isinstance(name, str):
                known = names.get(name)
                if known is None:
                    parts = word_terms(name)
                    known = names[name] = (len(parts), tuple(term for term in parts if term in weights))
                length += known[0]
                if known[1]:
                    hits.extend(known[1])
    return length, hits


class LexicalProfile:
    name = "lexical"
    revision = 1
    options_model = LexicalOptions

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
        postings: dict[str, list[tuple[int, int]]] = {term: [] for term in weights}
        lengths: dict[int, int] = {}
        names: dict[str, tuple[int, tuple[str, ...]]] = {}
        for index, candidate in enumerate(candidates):
            length, found = query_terms_of(candidate, opts.path_weight, weights, names)
            # Count only the query's terms: a Counter of every term would build one hash
            # table per file, whose cost grows with the vocabulary, not just the file.
            counts = Counter(found)
            if counts:
                lengths[index] = length
            for term, count in counts.items():
                postings[term].append((index, count))
        if not lengths:
            return {}
        # Statistics over the candidates sharing a query term only: a file unrelated to the
        # query changes no score, so adding one never reorders the relevant ones.
        n = len(lengths)
        average = (sum(lengths.values()) / n) or 1.0
        k1, b = opts.k1 / 100, opts.b / 100
        raw = [0.0] * len(candidates)
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
