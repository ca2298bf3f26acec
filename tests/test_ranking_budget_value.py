"""The budget spent by value inside assembly: scored files first, a score-0 file only in what is left, said so."""

from __future__ import annotations

from pathlib import Path

import pytest

from lychd_core.cli.rank_cmd import rank_text
from lychd_core.config import parse_config
from lychd_core.errors import LychdError
from lychd_core.ranking.explain import node_rankings
from tests.test_ranking_assembly import RANKING, assemble, config


def write_tree(root: Path) -> list[str]:
    pkg = root / "pkg"
    pkg.mkdir()
    methods = "\n".join(
        f"    def parse_cookie_part_{k}(self, raw: str, *, strict: bool = True) -> str: ..." for k in range(40)
    )
    (pkg / "cookies.py").write_text(f'"""Cookie parsing."""\n\n\nclass CookieJar:\n{methods}\n')
    (pkg / "__init__.py").write_text('"""The package."""\n\nVERSION = "1.0"\n')
    return ["pkg/__init__.py", "pkg/cookies.py"]


def selected(assembled: object, path: str) -> list[str]:
    return [k for k in assembled.plan.selected if k.startswith(f"L2:codex:{path}:")]  # type: ignore[attr-defined]


def test_a_score_0_file_never_takes_room_the_scored_file_needs(tmp_path: Path) -> None:
    paths = write_tree(tmp_path)
    query = "CookieJar parse cookie part"
    roomy = assemble(tmp_path, config(3_000), query, paths)
    full, init = "codex:pkg/cookies.py:structure.python@1", "codex:pkg/__init__.py:structure.python@1"
    entries = {e.node_id: e for e in roomy.ranking.report.entries}
    assert entries[full].score > 0 and entries[init].score == 0
    assert selected(roomy, "pkg/cookies.py") == ["L2:" + full + "#signatures"]
    assert selected(roomy, "pkg/__init__.py") == ["L2:" + init], "in the room the scored file left"
    used = sum(roomy.to_json()["layer_chars"].values())
    small = len(next(b.text for b in roomy.floor if b.key == init))
    tight = assemble(tmp_path, config(used - small // 2), query, paths)  # half of the score-0 file's room gone
    assert selected(tight, "pkg/cookies.py") == ["L2:" + full + "#signatures"]
    assert not selected(tight, "pkg/__init__.py"), "the score-0 file did not take the scored file's room"


def test_the_output_says_when_a_score_0_file_gets_its_full_outline(tmp_path: Path) -> None:
    paths = write_tree(tmp_path)
    assembled = assemble(tmp_path, config(96_000), "CookieJar parse cookie part", paths)
    init = "L2:codex:pkg/__init__.py:structure.python@1"
    assert assembled.plan.is_selected(init)
    row = node_rankings(assembled.ranking, assembled.plan)[init]
    assert row.score == 0 and row.resolution == "full"
    assert (
        row.resolution_note.startswith("score 0: planned only in the ")
        and "every scored file left" in row.resolution_note
    )
    assert "score 0: planned only in the" in rank_text(row)
    scored = node_rankings(assembled.ranking, assembled.plan)["L2:codex:pkg/cookies.py:structure.python@1"]
    assert scored.resolution_note == ""


def test_map_share_is_refused_with_what_replaced_it() -> None:
    with pytest.raises(LychdError) as caught:
        parse_config(
            {
                "schema_version": 1,
                "role_policy": {"name": "roles.standard", "revision": 1},
                "ranking": {**RANKING, "map_share": 40},
            }
        )
    assert "map_share was removed" in str(caught.value) and "sized by what it buys" in str(caught.value)
