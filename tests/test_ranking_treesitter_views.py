"""Coarser views of tree-sitter outlines inside assembly, and verbatim Go falling back to them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lychd_core.config import parse_config
from tests.test_ranking_assembly import RANKING, assemble
from tests.test_ranking_verbatim_fallback import block_of, codex

GO_RULE = {"text/x-go": {"profile": "structure.go", "revision": 2}}
VERBATIM_GO = {"text/x-go": {"profile": "verbatim", "revision": 1}}


def config(char_cap: int, rules: dict[str, Any]) -> Any:
    return parse_config(
        {
            "schema_version": 1,
            "governors": {"char_cap": char_cap},
            "projection": {"rules": rules},
            "role_policy": {"name": "roles.standard", "revision": 1},
            "ranking": RANKING,
        }
    )


def write_go(root: Path) -> list[str]:
    pkg = root / "store"
    pkg.mkdir()
    methods = "".join(
        f"// Get{k} returns one cookie part.\nfunc (j *CookieJar) ParseCookie{k}(raw string) string {{\n"
        f"\tvalue := strings.ToLower(raw)\n\treturn value + {k!r}\n}}\n\n"
        for k in range(30)
    )
    (pkg / "cookies.go").write_text(
        f'package store\n\nimport "strings"\n\n// CookieJar keeps cookies.\ntype CookieJar struct {{\n'
        f"\tparts []string\n\tstrict bool\n}}\n\n{methods}"
    )
    return ["store/cookies.go"]


def test_a_go_outline_that_does_not_fit_is_offered_as_signatures_or_names(tmp_path: Path) -> None:
    paths = write_go(tmp_path)
    whole = assemble(tmp_path, config(96_000, GO_RULE), "CookieJar parse cookie", paths)
    [full_key] = codex(whole, "store/cookies.go")
    offered = whole.ranking.resolutions[full_key.removeprefix("L2:")]
    assert [key.rsplit("#", 1)[1] for key in offered] == ["signatures", "names"]
    full = block_of(whole, full_key)
    tight = assemble(tmp_path, config(len(full.text) - 200, GO_RULE), "CookieJar parse cookie", paths)
    [chosen] = codex(tight, "store/cookies.go")
    assert chosen == full_key + "#signatures"
    block = block_of(tight, chosen)
    assert "func (j *CookieJar) ParseCookie0(raw string) string  // L" in block.text
    assert "returns one cookie part" not in block.text and "import" not in block.text
    assert block.lineage.omissions[-1].kind == "resolution-signatures"
    assert tight.to_json()["ranking"]["nodes"][chosen]["resolution_note"].startswith("signatures only:")


def test_a_verbatim_go_file_falls_back_to_its_outline_then_its_views(tmp_path: Path) -> None:
    paths = write_go(tmp_path)
    assembled = assemble(tmp_path, config(1_500, VERBATIM_GO), "CookieJar parse cookie", paths)
    full_key = "codex:store/cookies.go:verbatim@1"
    offered = assembled.ranking.resolutions[full_key]
    assert [key.rsplit("#", 1)[1] for key in offered] == ["outline", "signatures", "names"]
    [chosen] = codex(assembled, "store/cookies.go")
    block = block_of(assembled, chosen)
    assert "return value" not in block.text and "CookieJar" in block.text
    assert block.lineage.profile is not None and block.lineage.profile.startswith("structure.go@")
    assert block.lineage.omissions[-1].kind.startswith("verbatim-to-")
