"""Golden coarser views per language: ``signatures`` and ``names``, as ``structure.python`` offers.

Each view of each golden source is compared byte for byte with its ``.signatures`` or
``.names`` file, rendered for one fixed query; the views are strictly shorter than the
outline and than each other, so the ranking stage keeps all of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lychd_structure_treesitter import PROFILES, StructureTreeSitterOptions

from lychd_core.blocks import Block, Layer
from lychd_core.digests import sha256_digest
from lychd_core.families import Projected, SourceMaterial
from lychd_core.labels import PrivatizationLabel
from lychd_core.ranking.resolutions import checked_resolutions

GOLDEN = Path(__file__).resolve().parent / "golden"
BY_MEDIA_TYPE = {media: profile for profile in PROFILES for media in profile.media_types}
SOURCES = {
    "inventory.js": "text/javascript",
    "registry.cjs": "text/javascript",
    "shapes.ts": "text/x-typescript",
    "panel.tsx": "text/x-tsx",
    "server.go": "text/x-go",
    "ledger.rs": "text/x-rust",
    "Scheduler.java": "text/x-java",
}

QUERY_TERMS = frozenset({"area", "balance", "schedule", "load", "get", "render", "distance"})


def project(name: str) -> Projected:
    data = (GOLDEN / name).read_bytes()
    source = SourceMaterial(name, SOURCES[name], data, sha256_digest(data), 2_000_000, 96_000)
    outcome = BY_MEDIA_TYPE[SOURCES[name]].project(source, StructureTreeSitterOptions())
    assert isinstance(outcome, Projected), outcome
    return outcome


def views(name: str) -> dict[str, str]:
    outcome = project(name)
    profile = BY_MEDIA_TYPE[SOURCES[name]]
    return dict(profile.resolutions(outcome.facts, QUERY_TERMS))


@pytest.mark.parametrize("view", ["signatures", "names"])
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_golden_view(name: str, view: str) -> None:
    expected = (GOLDEN / f"{name}.{view}").read_text(encoding="utf-8")
    assert views(name)[view] + "\n" == expected


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_views_are_strictly_coarser_and_kept_by_the_core(name: str) -> None:
    outcome = project(name)
    offered = tuple(views(name).items())
    assert [n for n, _ in offered] == ["signatures", "names"]
    full = Block(layer=Layer.CODEX, key=f"codex:{name}:x@1", text=outcome.text, label=PrivatizationLabel.public("p"))
    assert checked_resolutions(full, offered) == offered  # each strictly shorter than the finer one


def test_signatures_leave_out_docs_imports_and_fields() -> None:
    text = views("ledger.rs")["signatures"]
    assert "///" not in text and "use std" not in text and "#[derive" not in text
    assert "amount: i64" not in text and "TooLarge" not in text  # fields and variants
    assert "pub fn post(&mut self, entry: Entry) -> Result<(), LedgerError>  // L46" in text


def test_names_show_the_members_the_query_matched() -> None:
    assert "class Shape: area" in views("shapes.ts")["names"].splitlines()
    profile = BY_MEDIA_TYPE["text/x-typescript"]
    unmatched = dict(profile.resolutions(project("shapes.ts").facts, frozenset()))
    assert "class Shape" in unmatched["names"].splitlines()


@pytest.mark.parametrize("facts", [None, {}, {"definitions": []}, {"definitions": "x"}, [1, 2]])
def test_no_definitions_offer_no_views(facts: object) -> None:
    assert BY_MEDIA_TYPE["text/x-go"].resolutions(facts, frozenset()) == ()


def write_goldens() -> None:  # pragma: no cover - run by hand after a deliberate change
    for name in SOURCES:
        for view, text in views(name).items():
            Path(GOLDEN / f"{name}.{view}").write_text(text + "\n", encoding="utf-8")
