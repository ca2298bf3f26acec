"""``symbol-graph`` revisions 1 to 4: personalized PageRank over who uses whose definitions.

Nodes are the candidate files. An edge ``a -> b`` means ``a`` references a name that
``b`` defines (from the ``symbols`` facts: ``defines`` and ``references``), or imports
``b`` (from the ``imports`` facts). PageRank restarts at the *seeds*: files defining an
identifier the query (or, weaker, the history) writes, files the query names, and files
already required. All arithmetic is on integers, so every platform gets the same ranks;
the PageRank is computed by forward push, whose work depends on its precision, not on
the number of files. Revision 2 also resolves the imports of JavaScript/TypeScript, Go,
Rust and Java files (:mod:`lychd_ranking.imports`); Python's scores are those of 1.
Revision 3 (the default) is revision 2's graph with the walk restarting at the seeds half
the time (damping 50%, not 85%): the mass stays nearer the files the query names, which
measured better on real commits (docs/performance.md, issue 28).
Revision 4 (the default) is revision 3 with a package's ``__init__.py`` also seeded when
the query names its directory (``config`` -> ``config/__init__.py``), at half the weight
of a module named by its file name: revisions 1 to 3 never seeded an ``__init__.py`` by name.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from lychd_core.families import MAX_SCORE, RankingCandidate, RankingQuery, Score
from lychd_ranking.graph import SymbolIndex, pagerank, seeds_of


class SymbolGraphOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    damping: int | None = Field(
        default=None,
        ge=0,
        le=99,
        strict=True,
        description="PageRank damping, in percent; by default 50 (revisions 3 and 4), 85 (revisions 1 and 2).",
        examples=[50],
    )
    precision: int = Field(
        default=12,
        ge=4,
        le=24,
        strict=True,
        description="A file pushes its rank on while it holds at least 2**-precision of it per link.",
        examples=[12],
    )
    max_definers: int = Field(
        default=4,
        ge=1,
        le=100,
        strict=True,
        description="A name defined in more files than this links nothing (too common to mean anything).",
        examples=[4],
    )


REVISIONS = (1, 2, 3, 4)
DAMPING = {1: 85, 2: 85, 3: 50, 4: 50}
"""Each revision's default damping, in percent."""


class SymbolGraphProfile:
    """Revision 1 resolves Python imports only; 2 also those of the tree-sitter languages;
    3 is 2 with damping 50% by default; 4 is 3 with packages named by their directory."""

    name = "symbol-graph"
    options_model = SymbolGraphOptions

    def __init__(self, revision: int = 4) -> None:
        if revision not in REVISIONS:
            raise ValueError(f"symbol-graph has revisions 1 to 4, not {revision}")
        self.revision = revision

    def rank(
        self, query: RankingQuery, candidates: tuple[RankingCandidate, ...], options: BaseModel
    ) -> Mapping[str, Score]:
        opts = (
            options
            if isinstance(options, SymbolGraphOptions)
            else SymbolGraphOptions.model_validate(options.model_dump())
        )
        if not candidates:
            return {}
        candidates = tuple(sorted(candidates, key=lambda c: c.node_id))  # scores never depend on input order
        index = SymbolIndex.of(candidates, opts.max_definers, languages=self.revision >= 2)
        seeds, seed_reasons = seeds_of(index, query, packages=self.revision >= 4)
        if not seeds:
            return {}
        damping = DAMPING[self.revision] if opts.damping is None else opts.damping
        ranks, via = pagerank(index, seeds, damping, opts.precision)
        best = max(ranks)
        if best <= 0:
            return {}
        scores: dict[str, Score] = {}
        for position, value in enumerate(ranks):
            points = value * MAX_SCORE // best
            if not points:
                continue
            reason = seed_reasons.get(position)
            if reason is None:
                source, name = via.get(position, (-1, ""))
                reason = f"linked from {index.paths[source]} via {name}" if source >= 0 else "reached in the graph"
            scores[candidates[position].node_id] = Score(points, reason)
        return scores
