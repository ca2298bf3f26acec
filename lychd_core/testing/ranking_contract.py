"""The contract suite of ranking profiles."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.families import MAX_SCORE, PluginFamily, RankingCandidate, RankingQuery, Score
from lychd_core.ranking.engine import check_scores
from lychd_core.testing.contracts import _PluginContract


class RankingProfileContract(_PluginContract):
    """Override ``ranking_profile`` and, for a meaningful sample, ``sample_candidates`` and ``sample_query``."""

    family = PluginFamily.RANKING_PROFILE

    @pytest.fixture
    def ranking_profile(self) -> Any:
        raise NotImplementedError("override the 'ranking_profile' fixture")

    @pytest.fixture
    def plugin(self, ranking_profile: Any) -> Any:
        return ranking_profile

    @pytest.fixture
    def sample_candidates(self) -> tuple[RankingCandidate, ...]:
        return (
            RankingCandidate("codex:pkg/config.py:p@1", "pkg/config.py", "def load_config(path): ...", None),
            RankingCandidate("codex:pkg/render.py:p@1", "pkg/render.py", "def render_page(template): ...", None),
            RankingCandidate("codex:pkg/util.py:p@1", "pkg/util.py", "def chunks(items, size): ...", None),
        )

    @pytest.fixture
    def sample_query(self) -> RankingQuery:
        return RankingQuery("Where is load_config reading the config path?")

    def _rank(self, profile: Any, query: RankingQuery, candidates: tuple[RankingCandidate, ...]) -> dict[str, Score]:
        raw = profile.rank(query, candidates, profile.options_model())
        return check_scores(
            profile.pin if hasattr(profile, "pin") else profile.name, raw, {c.node_id: c for c in candidates}
        )

    def test_scores_are_bounded_integers_for_known_candidates(
        self, ranking_profile: Any, sample_query: RankingQuery, sample_candidates: tuple[RankingCandidate, ...]
    ) -> None:
        scores = self._rank(ranking_profile, sample_query, sample_candidates)
        for score in scores.values():
            assert type(score.value) is int and 0 <= score.value <= MAX_SCORE

    def test_ranking_is_deterministic(
        self, ranking_profile: Any, sample_query: RankingQuery, sample_candidates: tuple[RankingCandidate, ...]
    ) -> None:
        first = self._rank(ranking_profile, sample_query, sample_candidates)
        assert first == self._rank(ranking_profile, sample_query, sample_candidates)

    def test_candidate_order_does_not_change_scores(
        self, ranking_profile: Any, sample_query: RankingQuery, sample_candidates: tuple[RankingCandidate, ...]
    ) -> None:
        forward = self._rank(ranking_profile, sample_query, sample_candidates)
        backward = self._rank(ranking_profile, sample_query, tuple(reversed(sample_candidates)))
        assert forward == backward

    def test_no_candidates_scores_nothing(self, ranking_profile: Any, sample_query: RankingQuery) -> None:
        assert self._rank(ranking_profile, sample_query, ()) == {}

    def test_a_query_in_another_script_is_not_an_error(
        self, ranking_profile: Any, sample_candidates: tuple[RankingCandidate, ...]
    ) -> None:
        self._rank(ranking_profile, RankingQuery("配置はどこで読み込まれますか"), sample_candidates)
