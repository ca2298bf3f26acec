"""Verbatim material falls back to its structure outline, declared as an omission, never cut."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.blocks import Block
from lychd_core.config import parse_config
from lychd_core.families import PluginFamily
from lychd_core.projection.alternate import structure_profile_for
from lychd_core.registry import get_registry
from tests.test_ranking_assembly import RANKING, assemble

VERBATIM_PYTHON = {
    "text/x-python": {"profile": "verbatim", "revision": 1},
    "text/markdown": {"profile": "verbatim", "revision": 1},
}


def config(char_cap: int, *, resolutions: bool = True, rules: dict[str, Any] | None = None) -> Any:
    return parse_config(
        {
            "schema_version": 1,
            "governors": {"char_cap": char_cap},
            "projection": {"rules": rules or VERBATIM_PYTHON},
            "role_policy": {"name": "roles.standard", "revision": 1},
            "ranking": {**RANKING, "resolutions": resolutions},
        }
    )


def write_tree(root: Path, methods: int = 30) -> list[str]:
    pkg = root / "pkg"
    pkg.mkdir()
    body = "".join(
        f"    def parse_cookie_{k}(self, raw: str) -> str:\n"
        f"        value = raw.strip().lower()\n        return value + {k!r}\n\n"
        for k in range(methods)
    )
    (pkg / "cookies.py").write_text(f'"""Cookie parsing."""\n\n\nclass CookieJar:\n{body}')
    (pkg / "notes.md").write_text("# Notes\n\n" + "The cookie jar keeps cookies.\n" * 40)
    return ["pkg/cookies.py", "pkg/notes.md"]


def codex(assembled: Any, path: str) -> list[str]:
    return [key for key in assembled.plan.selected if key.startswith(f"L2:codex:{path}:")]


def block_of(assembled: Any, node_id: str) -> Block:
    return next(b for b in assembled.floor if "L2:" + b.key == node_id)


def test_a_verbatim_python_file_that_does_not_fit_falls_back_to_its_outline(tmp_path: Path) -> None:
    paths = write_tree(tmp_path)
    whole = assemble(tmp_path, config(96_000), "CookieJar parse cookie", paths)
    [full_key] = codex(whole, "pkg/cookies.py")
    verbatim = block_of(whole, full_key)
    assert full_key.endswith(":verbatim@1") and "return value" in verbatim.text

    tight = assemble(tmp_path, config(len(verbatim.text) // 2), "CookieJar parse cookie", paths)
    [chosen] = codex(tight, "pkg/cookies.py")
    assert chosen.startswith(full_key + "#"), "a structure view of the verbatim node's key family"
    block = block_of(tight, chosen)
    assert "return value" not in block.text and "CookieJar" in block.text, "an outline, not cut text"
    omission = block.lineage.omissions[-1]
    assert omission.kind.startswith("verbatim-to-") and "structure.python@1" in omission.reason
    assert block.lineage.profile == "structure.python@1" and block.lineage.source_path == "pkg/cookies.py"
    explanation = tight.plan.explanations[full_key]
    assert not explanation.selected and explanation.reason.value == "alternative-selected"
    row = tight.to_json()["ranking"]["nodes"][chosen]
    assert row["resolution"] == chosen.rsplit("#", 1)[1] and row["resolution_note"]


def test_the_outline_comes_first_then_the_structure_profiles_coarser_views(tmp_path: Path) -> None:
    paths = write_tree(tmp_path)
    assembled = assemble(tmp_path, config(2_000), "CookieJar parse cookie", paths)
    full_key = "codex:pkg/cookies.py:verbatim@1"
    offered = assembled.ranking.resolutions[full_key]
    assert [key.rsplit("#", 1)[1] for key in offered] == ["outline", "signatures", "names"]
    sizes = [len(b.text) for b in assembled.floor if b.key == full_key or b.key in offered]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == len(sizes)


def test_media_types_no_structure_profile_covers_keep_only_the_verbatim_node(tmp_path: Path) -> None:
    paths = write_tree(tmp_path)
    assembled = assemble(tmp_path, config(2_000), "cookie jar notes", paths)
    assert "codex:pkg/notes.md:verbatim@1" not in assembled.ranking.resolutions
    assert structure_profile_for(config(2_000), get_registry(), "text/markdown") is None


def test_without_resolutions_there_is_no_fallback(tmp_path: Path) -> None:
    paths = write_tree(tmp_path)
    assembled = assemble(tmp_path, config(2_000, resolutions=False), "CookieJar parse cookie", paths)
    assert not codex(assembled, "pkg/cookies.py"), "the verbatim file does not fit and is never cut"
    assert assembled.ranking.resolutions == {}


def test_a_structure_rule_pins_the_fallbacks_profile() -> None:
    cfg = config(2_000, rules={**VERBATIM_PYTHON, "text/x-go": {"profile": "structure.go", "revision": 1}})
    registry = get_registry()
    found = structure_profile_for(cfg, registry, "text/x-python")
    assert found is not None and found[0].name == "structure.python"
    go = structure_profile_for(cfg, registry, "text/x-go")
    assert go is not None and go[0].pin == registry.lookup(PluginFamily.PROJECTION_PROFILE, "structure.go").pin


@settings(max_examples=8, deadline=None)
@given(st.integers(min_value=200, max_value=6_000))
def test_any_budget_selects_one_whole_view_or_none(tmp_path_factory: Any, cap: int) -> None:
    root = tmp_path_factory.mktemp("fallback")
    paths = write_tree(root, methods=12)
    assembled = assemble(root, config(cap), "CookieJar parse cookie", paths)
    chosen = codex(assembled, "pkg/cookies.py")
    assert len(chosen) <= 1
    for node_id in chosen:
        block = block_of(assembled, node_id)
        assert len(block.text) <= cap and "truncated" not in block.text
        if "#" in node_id:
            assert block.lineage.omissions and block.lineage.omissions[-1].kind.startswith("verbatim-to-")
