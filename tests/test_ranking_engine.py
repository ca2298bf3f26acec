"""Ranking profiles: registration, score checks, fallbacks and the order properties."""

from __future__ import annotations

import gc
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_ranking import LexicalProfile, SymbolGraphProfile
from pydantic import BaseModel, ConfigDict

from lychd_core.errors import (
    InvalidScoreError,
    PluginValidationError,
    RankingProfileFailed,
    RankingQueryError,
    UnknownCandidateError,
)
from lychd_core.families import MAX_SCORE, PluginFamily, RankingCandidate, RankingQuery, Score
from lychd_core.plugins import host
from lychd_core.ranking import WeightedProfile, rank, rank_or_fallback, split_identifier, terms
from lychd_core.registry import build_registry, registry_from


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Fixed:
    """Returns whatever it is given: the tool to test what the core accepts."""

    name = "test.fixed"
    revision = 1
    options_model = NoOptions

    def __init__(self, result: Any = None, error: Exception | None = None) -> None:
        self.result, self.error = result, error

    def rank(self, query: RankingQuery, candidates: tuple[RankingCandidate, ...], options: BaseModel) -> Any:
        if self.error is not None:
            raise self.error
        return self.result


def cand(path: str, text: str, facts: Any = None) -> RankingCandidate:
    return RankingCandidate(f"codex:{path}:p@1", path, text, facts)


CANDIDATES = (cand("pkg/a.py", "def alpha(): ..."), cand("pkg/b.py", "def beta(): ..."))
REAL = [
    WeightedProfile("lexical@2", 2, LexicalProfile(), LexicalProfile.options_model()),
    WeightedProfile("symbol-graph@4", 1, SymbolGraphProfile(), SymbolGraphProfile.options_model()),
]


def weighted(profile: Any) -> list[WeightedProfile]:
    return [WeightedProfile("test.fixed@1", 1, profile, NoOptions())]


def test_lychd_register_ranking_profiles_registers_through_the_hook() -> None:
    from lychd_core.hookspecs import hookimpl

    class Plugin:
        @hookimpl
        def lychd_register_ranking_profiles(self, register: Any) -> None:
            register(Fixed({}))

    host.pm.register(Plugin(), name="test-ranking-hook")
    try:
        registry = build_registry(host)
        assert registry.ranking_profile("test.fixed", 1).name == "test.fixed"
    finally:
        host.pm.unregister(name="test-ranking-hook")


def test_a_ranking_profile_without_rank_is_refused() -> None:
    class NoRank:
        name, revision, options_model = "test.norank", 1, NoOptions

    with pytest.raises(PluginValidationError, match="rank"):
        registry_from([(PluginFamily.RANKING_PROFILE, NoRank())])


@pytest.mark.parametrize(
    ("result", "error"),
    [
        ({"codex:pkg/a.py:p@1": Score(1.5, "x")}, InvalidScoreError),  # type: ignore[arg-type]
        ({"codex:pkg/a.py:p@1": Score(True, "x")}, InvalidScoreError),
        ({"codex:pkg/a.py:p@1": Score(MAX_SCORE + 1, "x")}, InvalidScoreError),
        ({"codex:pkg/a.py:p@1": Score(-1, "x")}, InvalidScoreError),
        ({"codex:pkg/a.py:p@1": 5}, InvalidScoreError),
        ({"codex:pkg/a.py:p@1": Score(5, "x" * 301)}, InvalidScoreError),
        ([("codex:pkg/a.py:p@1", Score(5))], InvalidScoreError),
        ({"codex:elsewhere.py:p@1": Score(5)}, UnknownCandidateError),
    ],
)
def test_bad_scores_are_typed_errors_and_fall_back_to_the_unranked_order(result: Any, error: type) -> None:
    with pytest.raises(error):
        rank(weighted(Fixed(result)), RankingQuery("alpha"), CANDIDATES)
    report = rank_or_fallback(weighted(Fixed(result)), RankingQuery("alpha"), CANDIDATES)
    assert not report.ranked and error.__name__ in (report.fallback or "")
    assert all(report.relevance(c.node_id) == 0 for c in CANDIDATES)
    assert sorted(e.path for e in report.entries) == sorted(c.path for c in CANDIDATES)


def test_a_profile_that_raises_is_named_in_the_fallback() -> None:
    with pytest.raises(RankingProfileFailed, match=r"test\.fixed@1 raised ZeroDivisionError"):
        rank(weighted(Fixed(error=ZeroDivisionError("boom"))), RankingQuery("alpha"), CANDIDATES)


class SeesCollector(Fixed):
    """Records whether the cyclic collector ran while it ranked."""

    def rank(self, query: RankingQuery, candidates: tuple[RankingCandidate, ...], options: BaseModel) -> Any:
        self.collector_on = gc.isenabled()
        return super().rank(query, candidates, options)


@pytest.mark.parametrize("error", [None, ZeroDivisionError("boom")])
def test_the_ranking_runs_with_the_collector_paused_and_restores_it(error: Exception | None) -> None:
    profile = SeesCollector({}, error)
    assert gc.isenabled()
    report = rank_or_fallback(weighted(profile), RankingQuery("alpha"), CANDIDATES)
    assert profile.collector_on is False and gc.isenabled()
    assert report.ranked is False  # nothing scored, or the profile raised: the unranked order either way


@pytest.mark.parametrize("query", ["", "   \n\t "])
def test_an_empty_query_is_refused_and_explained(query: str) -> None:
    with pytest.raises(RankingQueryError):
        rank(REAL, RankingQuery(query), CANDIDATES)
    report = rank_or_fallback(REAL, RankingQuery(query), CANDIDATES)
    assert "empty" in (report.fallback or "")
    # The fallback still lists every candidate, in the unranked (node id) order, scored 0.
    assert [e.node_id for e in report.entries] == sorted(c.node_id for c in CANDIDATES)
    assert [e.rank for e in report.entries] == list(range(1, len(CANDIDATES) + 1))
    assert all(e.score == 0 and set(e.components) == {"lexical@2", "symbol-graph@4"} for e in report.entries)
    assert all(report.relevance(c.node_id) == 0 for c in CANDIDATES)


@pytest.mark.parametrize("query", ["配置はどこで読み込まれますか", "zzqx_unmatched_ident Qwvy"])
def test_a_query_that_matches_nothing_keeps_the_unranked_order(query: str) -> None:
    report = rank_or_fallback(REAL, RankingQuery(query), CANDIDATES)
    assert not report.ranked and "no query term matched" in (report.fallback or "")


def test_a_query_of_100k_characters_ranks() -> None:
    query = ("beta " + "filler words here " * 6000)[:100_000]
    report = rank(REAL, RankingQuery(query), CANDIDATES)
    assert report.entries[0].path == "pkg/b.py"


def test_one_file_and_no_files() -> None:
    assert rank(REAL, RankingQuery("alpha"), CANDIDATES[:1]).entries[0].rank == 1
    assert rank_or_fallback(REAL, RankingQuery("alpha"), ()).entries == ()


def test_identifier_splitting() -> None:
    assert split_identifier("parse_HTTPServerError2") == ["parse", "http", "server", "error", "2"]
    assert terms("os.path.join the getUserName") == ["os", "path", "join", "getusername", "get", "user", "name"]
    assert terms("see https://example.com/fooBar now") == ["see", "now"]


def test_scores_combine_by_integer_weight() -> None:
    a, b = CANDIDATES
    one = Fixed({a.node_id: Score(10_000, "one"), b.node_id: Score(0)})
    two = Fixed({a.node_id: Score(0), b.node_id: Score(4_000, "two")})
    profiles = [WeightedProfile("x@1", 1, one, NoOptions()), WeightedProfile("y@1", 3, two, NoOptions())]
    report = rank(profiles, RankingQuery("q"), CANDIDATES)
    assert [(e.path, e.score) for e in report.entries] == [("pkg/b.py", 3_000), ("pkg/a.py", 2_500)]
    assert report.entries[0].components == {"x@1": 0, "y@1": 4_000}


# --- properties -----------------------------------------------------------------------

WORDS = ["alpha", "beta", "gamma", "delta", "parse_config", "HttpServer", "render", "cache"]
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
trees = st.dictionaries(st.sampled_from([f"pkg/m{i}.py" for i in range(12)]), texts, min_size=1, max_size=8)


def _candidates(tree: Mapping[str, str]) -> tuple[RankingCandidate, ...]:
    return tuple(cand(path, f"def f():\n    {text}\n") for path, text in sorted(tree.items()))


@settings(max_examples=60, deadline=None)
@given(trees, texts)
def test_same_inputs_give_the_same_order_whatever_the_candidate_order(tree: dict[str, str], query: str) -> None:
    candidates = _candidates(tree)
    first = rank_or_fallback(REAL, RankingQuery(query), candidates)
    again = rank_or_fallback(REAL, RankingQuery(query), tuple(reversed(candidates)))
    assert first == again


@settings(max_examples=60, deadline=None)
@given(trees, texts, st.integers(0, 9))
def test_adding_an_unrelated_file_never_lowers_a_relevant_files_rank(
    tree: dict[str, str], query: str, number: int
) -> None:
    before = rank_or_fallback(REAL, RankingQuery(query), _candidates(tree))
    unrelated = cand(f"zz/unrelated{number}.py", "def qqq(): xyzzy plugh\n")
    after = rank_or_fallback(REAL, RankingQuery(query), (*_candidates(tree), unrelated))
    ranks = {e.node_id: e.rank for e in after.entries}
    for entry in before.entries:
        if entry.score:
            assert ranks[entry.node_id] <= entry.rank


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["cache", "render", "store", "loader"]), min_size=2, max_size=4, unique=True))
def test_a_file_named_in_the_query_ranks_first_among_files_it_ties_with(stems: list[str]) -> None:
    candidates = tuple(cand(f"pkg/{stem}.py", "def f(): ...") for stem in stems)
    tie = Fixed({c.node_id: Score(500, "tie") for c in candidates})
    named = stems[-1]
    report = rank(weighted(tie), RankingQuery(f"why is {named} slow"), candidates)
    assert report.entries[0].path == f"pkg/{named}.py" and report.entries[0].named_in_query
