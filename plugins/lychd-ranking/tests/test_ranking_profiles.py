"""The first-party ranking profiles: the contract kit, then what each is for."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_ranking import LexicalProfile, SymbolGraphProfile
from lychd_ranking.graph import SymbolIndex, module_names, pagerank, seeds_of

from lychd_core.families import RankingCandidate, RankingQuery
from lychd_core.testing import RankingProfileContract


class TestLexical(RankingProfileContract):
    @pytest.fixture
    def ranking_profile(self) -> LexicalProfile:
        return LexicalProfile()


class TestSymbolGraph(RankingProfileContract):
    @pytest.fixture
    def ranking_profile(self) -> SymbolGraphProfile:
        return SymbolGraphProfile()


def symbols(defines: list[str], references: list[str], imports: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"symbols": {"defines": defines, "references": references}, "imports": imports or []}


def cand(path: str, text: str = "", facts: Any = None) -> RankingCandidate:
    return RankingCandidate(f"codex:{path}:p@1", path, text, facts)


def test_lexical_splits_identifiers_and_counts_the_path() -> None:
    candidates = (cand("pkg/cookies.py", "def other(): ..."), cand("pkg/misc.py", "def parse_value(): ..."))
    scores = LexicalProfile().rank(RankingQuery("cookie ParseValue"), candidates, LexicalProfile.options_model())
    assert set(scores) == {c.node_id for c in candidates}
    misc = scores["codex:pkg/misc.py:p@1"]
    assert "parse" in misc.reason and "value" in misc.reason


def test_lexical_history_counts_less_than_the_query() -> None:
    candidates = (cand("a.py", "def alpha(): ..."), cand("b.py", "def beta(): ..."))
    scores = LexicalProfile().rank(RankingQuery("alpha", history="beta"), candidates, LexicalProfile.options_model())
    assert scores["codex:a.py:p@1"].value > scores["codex:b.py:p@1"].value > 0


def test_symbol_graph_follows_references_from_the_seed() -> None:
    candidates = (
        cand("pkg/app.py", facts=symbols(["Application"], ["Router", "helper"])),
        cand("pkg/router.py", facts=symbols(["Router"], [])),
        cand("pkg/unrelated.py", facts=symbols(["Other"], [])),
    )
    scores = SymbolGraphProfile().rank(
        RankingQuery("Application fails"), candidates, SymbolGraphProfile.options_model()
    )
    assert scores["codex:pkg/app.py:p@1"].reason.startswith("seed: defines Application")
    assert scores["codex:pkg/router.py:p@1"].reason == "linked from pkg/app.py via Router"
    assert "codex:pkg/unrelated.py:p@1" not in scores


def test_symbol_graph_resolves_relative_imports() -> None:
    candidates = (
        cand(
            "src/pkg/a.py",
            facts=symbols(
                ["Alpha"],
                [],
                [{"statement": "from", "module": "b", "level": 1, "names": [{"name": "x", "asname": None}]}],
            ),
        ),
        cand("src/pkg/b.py", facts=symbols(["x"], [])),
    )
    scores = SymbolGraphProfile().rank(RankingQuery("Alpha"), candidates, SymbolGraphProfile.options_model())
    assert scores["codex:src/pkg/b.py:p@1"].reason == "linked from src/pkg/a.py via import b"


def test_symbol_graph_seeds_required_files_and_named_files() -> None:
    candidates = (cand("pkg/store.py", facts=symbols([], [])), cand("pkg/other.py", facts=symbols([], [])))
    query = RankingQuery("why is the store slow", required_paths=("pkg/other.py",))
    scores = SymbolGraphProfile().rank(query, candidates, SymbolGraphProfile.options_model())
    assert "named in the query" in scores["codex:pkg/store.py:p@1"].reason
    assert "required" in scores["codex:pkg/other.py:p@1"].reason


def test_symbol_graph_is_integer_arithmetic_and_repeatable() -> None:
    candidates = tuple(
        cand(f"pkg/m{i}.py", facts=symbols([f"Name{i}"], [f"Name{(i + 1) % 30}", f"Name{(i * 7) % 30}"]))
        for i in range(30)
    )
    profile = SymbolGraphProfile()
    first = profile.rank(RankingQuery("Name3 and Name11"), candidates, profile.options_model())
    assert first == profile.rank(RankingQuery("Name3 and Name11"), candidates, profile.options_model())
    assert all(type(score.value) is int for score in first.values())


def test_module_names() -> None:
    assert module_names("src/pkg/a/b.py") == ["src.pkg.a.b", "pkg.a.b", "a.b", "b"]
    assert module_names("pkg/__init__.py") == ["pkg"]
    assert module_names("README.md") == []


def test_symbol_graph_resolves_links_only_for_files_the_push_reaches() -> None:
    # A chain a0 -> a1 -> ... plus 2,000 files nothing links to: their links are never resolved.
    chain = [cand(f"chain/a{i}.py", facts=symbols([f"Alpha{i}"], [f"Alpha{i + 1}"])) for i in range(5)]
    loose = [cand(f"loose/b{i}.py", facts=symbols([f"Beta{i}"], [f"Beta{i + 1}"])) for i in range(2_000)]
    index = SymbolIndex.of(tuple(chain + loose), max_definers=4)
    seeds, _ = seeds_of(index, RankingQuery("Alpha0 fails"))
    ranks, via = pagerank(index, seeds, damping=85, precision=12)
    assert set(index.resolved) <= set(range(len(chain))), "a file outside the chain had its links resolved"
    assert all(ranks[position] > 0 for position in range(1, len(chain)))
    assert via[1] == (0, "Alpha1")
    assert index.edges(3) == {4: (12, "Alpha4")}


def test_symbol_graph_revision_3_keeps_more_of_the_mass_at_the_seeds() -> None:
    """Revision 3 is revision 2 with damping 50% by default: the file the query names stays first.
    At 85% most of the mass flows down the chain and piles up in its last file."""
    candidates = (
        cand("pkg/app.py", facts=symbols(["Application"], ["Router"])),
        cand("pkg/router.py", facts=symbols(["Router"], ["Rule"])),
        cand("pkg/rule.py", facts=symbols(["Rule"], [])),
    )
    query, options = RankingQuery("Application fails"), SymbolGraphProfile.options_model()
    newer, older = (
        SymbolGraphProfile(3).rank(query, candidates, options),
        SymbolGraphProfile(2).rank(query, candidates, options),
    )
    seed, last = "codex:pkg/app.py:p@1", "codex:pkg/rule.py:p@1"
    assert older[last].value == 10_000 > older[seed].value
    assert newer[seed].value == 10_000 > newer[last].value > 0
    # the same graph: with the damping pinned, the revisions agree
    pinned = SymbolGraphProfile.options_model(damping=85)
    assert SymbolGraphProfile(3).rank(query, candidates, pinned) == older
    assert SymbolGraphProfile().revision == 4
    with pytest.raises(ValueError, match="revisions 1 to 4"):
        SymbolGraphProfile(5)


def test_symbol_graph_revision_4_seeds_a_package_named_by_its_directory() -> None:
    """A query naming ``config`` names the package ``pkg/config/``: revision 4 seeds its
    ``__init__.py`` (half a named module's weight); revision 3 left it to the links."""
    candidates = (
        cand("pkg/config/__init__.py", facts=symbols(["Config"], [])),
        cand("pkg/main.py", facts=symbols(["Session"], ["Config"])),
        cand("pkg/other.py", facts=symbols(["Other"], [])),
    )
    query, options = RankingQuery("add a flag to the config"), SymbolGraphProfile.options_model()
    package = "codex:pkg/config/__init__.py:p@1"
    newer = SymbolGraphProfile(4).rank(query, candidates, options)
    assert newer[package].value == 10_000
    assert "package named in the query" in newer[package].reason
    assert SymbolGraphProfile(3).rank(query, candidates, options) == {}
    # the package's own name is not enough for a module beside it
    assert "codex:pkg/other.py:p@1" not in newer


def vague_tree() -> tuple[RankingCandidate, ...]:
    return (
        cand("pkg/a.py", "make the thing", symbols(["FlushBuffer"], [])),
        cand("pkg/b.py", "make the thing work", symbols(["FlushBuffer", "Other"], [])),
        cand("pkg/c.py", "def go(): ...", symbols(["go"], ["flush_buffer"])),
        cand("pkg/d.py", "def stop(): ...", symbols(["stop"], ["print"])),
    )


def test_lexical_revision_2_expands_a_vague_query_with_the_best_files_names() -> None:
    candidates, options = vague_tree(), LexicalProfile.options_model()
    before = LexicalProfile(1).rank(RankingQuery("make thing"), candidates, options)
    after = LexicalProfile(2).rank(RankingQuery("make thing"), candidates, options)
    # a.py and b.py score alike (no file stands out): what they define expands the query
    assert "codex:pkg/c.py:p@1" not in before
    assert 0 < after["codex:pkg/c.py:p@1"].value < after["codex:pkg/b.py:p@1"].value
    assert "flush" in after["codex:pkg/c.py:p@1"].reason
    assert "codex:pkg/d.py:p@1" not in after


def test_lexical_revision_2_does_not_expand_when_the_best_file_stands_out() -> None:
    candidates = (*vague_tree(), cand("pkg/e.py", "make make thing thing thing special", symbols(["Special"], [])))
    query, options = RankingQuery("make thing special"), LexicalProfile.options_model()
    assert LexicalProfile(2).rank(query, candidates, options) == LexicalProfile(1).rank(query, candidates, options)
    off = LexicalProfile.options_model(feedback_weight=0)
    vague = RankingQuery("make thing")
    assert LexicalProfile(2).rank(vague, candidates, off) == LexicalProfile(1).rank(vague, candidates, off)


def test_lexical_revisions() -> None:
    assert LexicalProfile().revision == 2
    with pytest.raises(ValueError, match="revisions 1 and 2"):
        LexicalProfile(3)


WORDS = ["make", "thing", "flush", "buffer", "reset", "writer", "time", "type"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(st.sampled_from(WORDS), max_size=6), st.lists(st.sampled_from(WORDS), max_size=3)),
        min_size=1,
        max_size=8,
    ),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
)
def test_lexical_revision_2_without_feedback_weight_is_revision_1(
    files: list[tuple[list[str], list[str]]], query: list[str]
) -> None:
    candidates = tuple(
        cand(f"pkg/f{i}.py", " ".join(text), symbols([w.capitalize() + "Name" for w in defines], text))
        for i, (text, defines) in enumerate(files)
    )
    q = RankingQuery(" ".join(query))
    off = LexicalProfile.options_model(feedback_weight=0)
    assert LexicalProfile(2).rank(q, candidates, off) == LexicalProfile(1).rank(q, candidates, off)
