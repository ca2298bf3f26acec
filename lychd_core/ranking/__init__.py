"""Query-aware ranking of optional material: profiles, their combination, coarser resolutions."""

from lychd_core.config.ranking import RankingConfig, RankingPin
from lychd_core.ranking.engine import (
    RankedCandidate,
    RankingReport,
    WeightedProfile,
    check_scores,
    named_in_query,
    rank,
    rank_or_fallback,
)
from lychd_core.ranking.errors import (
    InvalidScoreError,
    RankingError,
    RankingProfileFailed,
    RankingQueryError,
    UnknownCandidateError,
)
from lychd_core.ranking.explain import NodeRanking, node_rankings, ranking_json
from lychd_core.ranking.stage import Placement, RankedFloor, rank_floor, ranking_query, weighted_profiles
from lychd_core.ranking.terms import identifiers, path_terms, split_identifier, terms

__all__ = [
    "InvalidScoreError",
    "NodeRanking",
    "Placement",
    "RankedCandidate",
    "RankedFloor",
    "RankingConfig",
    "RankingError",
    "RankingPin",
    "RankingProfileFailed",
    "RankingQueryError",
    "RankingReport",
    "UnknownCandidateError",
    "WeightedProfile",
    "check_scores",
    "identifiers",
    "named_in_query",
    "node_rankings",
    "path_terms",
    "rank",
    "rank_floor",
    "rank_or_fallback",
    "ranking_json",
    "ranking_query",
    "split_identifier",
    "terms",
    "weighted_profiles",
]
