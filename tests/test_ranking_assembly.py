"""Ranking inside assembly and on the command line: ranked context, views, explanations, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lychd_core.assembly import ContextOrchestrator
from lychd_core.config import parse_config
from lychd_core.errors import LychdError
from lychd_core.projection.materials import MaterialRef
from tests.test_cli_assemble import lychd

RANKING = {"profiles": [{"name": "lexical", "revision": 2, "weight": 2}, {"name": "symbol-graph", "revision": 4}]}


def config(char_cap: int = 96_000, ranking: dict[str, Any] | None = RANKING) -> Any:
    data: dict[str, Any] = {
        "schema_version": 1,
        "governors": {"char_cap": char_cap},
        "projection": {"rules": {"text/x-python": {"profile": "structure.python", "revision": 1}}},
        "role_policy": {"name": "roles.standard", "revision": 1},
    }
    if ranking is not None:
        data["ranking"] = ranking
    return parse_config(data)


def workspace(root: Path, files: int = 6) -> list[str]:
    pkg = root / "pkg"
    pkg.mkdir()
    paths = []
    for i in range(files):
        (pkg / f"mod{i}.py").write_text(
            f'"""Module {i}."""\n\n\ndef helper_{i}(value: int) -> int:\n    return value\n'
        )
        paths.append(f"pkg/mod{i}.py")
    methods = "\n".join(
        f"    def parse_cookie_part_{k}(self, raw: str, *, strict: bool = True) -> str: ..." for k in range(40)
    )
    (pkg / "zcookies.py").write_text(f'"""Cookie parsing."""\n\n\nclass CookieJar:\n{methods}\n')
    return [*paths, "pkg/zcookies.py"]


def assemble(root: Path, cfg: Any, query: str, paths: list[str]) -> Any:
    orchestrator = ContextOrchestrator(cfg, workspace=root)
    assert orchestrator.workspace is not None
    refs = [MaterialRef.for_current(orchestrator.workspace, p, required=False) for p in paths]
    try:
        return orchestrator.assemble(run_id="r", session_id="s", query=query, codex=refs)
    finally:
        orchestrator.close()


def test_without_ranking_profiles_nothing_changes(tmp_path: Path) -> None:
    paths = workspace(tmp_path)
    assembled = assemble(tmp_path, config(ranking=None), "parse the cookie jar", paths)
    assert assembled.ranking is None and assembled.to_json()["ranking"] is None
    assert all(node.relevance == 0 and node.exclusive_group is None for node in assembled.plan.graph)


def test_the_query_decides_what_ranks_first(tmp_path: Path) -> None:
    paths = workspace(tmp_path)
    first = assemble(tmp_path, config(), "Where does CookieJar parse a cookie?", paths)
    entries = first.ranking.report.entries
    assert entries[0].path == "pkg/zcookies.py" and "cookie" in entries[0].reason
    other = assemble(tmp_path, config(), "what does helper_3 return", paths)
    assert other.ranking.report.entries[0].path == "pkg/mod3.py"
    assert first.plan.selected != other.plan.selected, "two questions, two contexts"


def test_a_large_relevant_file_falls_back_to_a_coarser_view_explained(tmp_path: Path) -> None:
    paths = workspace(tmp_path)
    full = assemble(tmp_path, config(), "CookieJar cookie parsing", paths)
    outline = next(b for b in full.floor if b.key == "codex:pkg/zcookies.py:structure.python@1")
    tight = assemble(tmp_path, config(char_cap=len(outline.text) // 2), "CookieJar cookie parsing", paths)
    chosen = [k for k in tight.plan.selected if k.startswith("L2:codex:pkg/zcookies.py")]
    assert len(chosen) == 1 and "#" in chosen[0], "a coarser view, never the cut outline"
    block = next(b for b in tight.floor if "L2:" + b.key == chosen[0])
    assert block.lineage.omissions[-1].kind.startswith("resolution-")
    assert block.text not in outline.text or len(block.text) < len(outline.text)
    data = tight.to_json()["ranking"]
    row = data["nodes"][chosen[0]]
    assert row["rank"] == 1 and row["resolution"] in {"signatures", "names"}
    assert row["resolution_note"].startswith(
        f"{row['resolution']} only: the full projection needs {len(outline.text):,}"
    )
    assert data["entries"][0]["components"]["lexical@2"] > 0
    full_explanation = tight.plan.explanations["L2:codex:pkg/zcookies.py:structure.python@1"]
    assert not full_explanation.selected


def test_an_unknown_ranking_profile_is_a_typed_refusal(tmp_path: Path) -> None:
    paths = workspace(tmp_path)
    bad = config(ranking={"profiles": [{"name": "lexicall", "revision": 1}]})
    with pytest.raises(LychdError, match="lexical"):
        assemble(tmp_path, bad, "cookie", paths)


def test_a_ranking_profile_listed_twice_is_a_config_error() -> None:
    with pytest.raises(LychdError, match="more than once"):
        config(ranking={"profiles": [{"name": "lexical", "revision": 2}, {"name": "lexical", "revision": 2}]})


def test_assemble_shows_rank_score_and_reason(tmp_path: Path) -> None:
    workspace(tmp_path)
    result = lychd(
        "assemble", "--config", str(Path("profiles/default.toml").resolve()), "--workspace", str(tmp_path),
        "--material", "pkg", "--query", "Where does CookieJar parse a cookie?",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    first = next(line for line in result.stdout.splitlines() if line.lstrip().startswith("1 "))
    assert first.split()[:5] == ["1", "full", first.split()[2], "10,000", "pkg/zcookies.py"]
    assert "matched" in first and "lexical@2" not in result.stdout
    assert "files ranked for the query by lexical and symbol-graph" in result.stdout
    explained = lychd(*result.args[3:], "--explain")
    assert "rank 1, score 10,000" in explained.stdout and "lexical@2: matched" in explained.stdout


def test_lychd_rank_lists_candidates_without_assembling(tmp_path: Path) -> None:
    workspace(tmp_path)
    result = lychd("rank", "--workspace", str(tmp_path), "--material", "pkg", "--query", "CookieJar", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["ranked"] and data["entries"][0]["path"] == "pkg/zcookies.py"
    assert set(data["entries"][0]["components"]) == {"lexical@2", "symbol-graph@4"}
    assert not (tmp_path / ".lychd" / "memory.sqlite3").exists()


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--query", "x", "--limit", "-1"], 1, "--limit"),
        (["--limit", "2"], 2, "--query"),
    ],
)
def test_lychd_rank_bad_arguments(tmp_path: Path, args: list[str], code: int, message: str) -> None:
    workspace(tmp_path)
    result = lychd("rank", "--workspace", str(tmp_path), "--material", "pkg", *args)
    assert result.returncode == code and message in result.stderr and "Traceback" not in result.stderr


def test_lychd_rank_whitespace_query_explains_the_fallback(tmp_path: Path) -> None:
    workspace(tmp_path)
    result = lychd("rank", "--workspace", str(tmp_path), "--material", "pkg", "--query", "   ", "--json")
    report = json.loads(result.stdout)
    assert result.returncode == 0 and "empty" in report["fallback"]
    # The unranked order is shown, not an empty list: every file, path order, scored 0.
    paths = [entry["path"] for entry in report["entries"]]
    assert paths and paths == sorted(paths) and all(entry["score"] == 0 for entry in report["entries"])
