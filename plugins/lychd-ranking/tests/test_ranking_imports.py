"""symbol-graph revision 2: imports of JavaScript/TypeScript, Go, Rust and Java files link their targets."""

from __future__ import annotations

from typing import Any

import pytest
from lychd_ranking import SymbolGraphProfile
from lychd_ranking.imports import import_keys, module_keys
from lychd_structure_treesitter import PROFILES, StructureTreeSitterOptions

from lychd_core.digests import sha256_digest
from lychd_core.families import Projected, RankingCandidate, RankingQuery, SourceMaterial

BY_MEDIA_TYPE = {media: profile for profile in PROFILES for media in profile.media_types}


def facts_of(media_type: str, source: str) -> Any:
    data = source.encode()
    outcome = BY_MEDIA_TYPE[media_type].project(
        SourceMaterial("x", media_type, data, sha256_digest(data), 2_000_000, 96_000), StructureTreeSitterOptions()
    )
    assert isinstance(outcome, Projected), outcome
    return outcome.facts


def cand(path: str, facts: Any) -> RankingCandidate:
    return RankingCandidate(f"codex:{path}:p@1", path, "", facts)


# (media type, importing file, its source, imported file, its source, the file an import must not reach)
TREES = {
    "typescript": (
        "text/x-typescript",
        "src/app/main.ts",
        'import * as vd from "../vdom/patch";\nexport function startApp(): void { vd.x(); }\n',
        "src/vdom/patch.ts",
        "export function mount(): void {}\n",
    ),
    "javascript": (
        "text/javascript",
        "lib/index.js",
        "const pp = require('./parser');\nexport function startApp() { return pp.x(); }\n",
        "lib/parser/index.js",
        "export function parse() { return 1; }\n",
    ),
    "go": (
        "text/x-go",
        "cmd/app/main.go",
        'package main\n\nimport ui "github.com/acme/tool/src/tui"\n\nfunc StartApp() { ui.X() }\n',
        "src/tui/screen.go",
        "package tui\n\nfunc Run() {}\n",
    ),
    "rust": (
        "text/x-rust",
        "src/app.rs",
        "use crate::render::frame;\n\npub fn start_app() { frame::x() }\n",
        "src/render/frame.rs",
        "pub struct Frame;\n",
    ),
    "java": (
        "text/x-java",
        "src/main/java/org/acme/App.java",
        "package org.acme;\n\nimport org.acme.nodes.*;\n\npublic class App { void startApp() { } }\n",
        "src/main/java/org/acme/nodes/Element.java",
        "package org.acme.nodes;\n\npublic class Element {}\n",
    ),
}


@pytest.mark.parametrize("language", sorted(TREES))
def test_an_import_links_the_importing_file_to_its_target(language: str) -> None:
    media_type, importer, source, target, target_source = TREES[language]
    other = "/".join([*target.split("/")[:-1], "x", target.split("/")[-1]])  # a folder deeper: another module
    importing, imported = facts_of(media_type, source), facts_of(media_type, target_source)
    candidates = (
        cand(importer, importing),
        cand(target, imported),
        cand(other, facts_of(media_type, target_source.replace("mount", "m").replace("Frame", "F"))),
    )
    query = RankingQuery("fix startApp start_app StartApp")
    options = SymbolGraphProfile.options_model()
    # the importer names nothing the target defines: only the import can link them
    assert not set(importing["symbols"]["references"]) & set(imported["symbols"]["defines"])
    scores = SymbolGraphProfile(2).rank(query, candidates, options)
    linked = scores[f"codex:{target}:p@1"]
    assert linked.value > 0 and linked.reason.startswith(f"linked from {importer} via import"), scores
    assert f"codex:{other}:p@1" not in scores
    older = SymbolGraphProfile(1).rank(query, candidates, options)
    assert f"codex:{target}:p@1" not in older, "revision 1 resolved Python imports only"


def test_module_keys_per_language() -> None:
    assert module_keys("src/vdom/index.ts") == ["js:src/vdom/index", "js:src/vdom"]
    assert module_keys("src/tui/screen.go") == ["go:src/tui", "go:tui"]
    assert module_keys("crates/core/src/render/mod.rs") == ["rust:render"]
    assert module_keys("src/lib.rs") == ["rust:"]
    assert "java:org.acme.App" in module_keys("src/main/java/org/acme/App.java")
    assert module_keys("pkg/a.py") == []


def test_import_keys_resolve_relative_paths_and_skip_other_packages() -> None:
    keys = import_keys("src/a/b.ts", {"imports": [{"module": "../c.js"}, {"module": "react"}]})
    assert keys == [("../c.js", ("js:src/c",))]
    assert import_keys("src/x.go", {"imports": [{"module": "net/http"}]}) == []
    rust = import_keys("src/a/b.rs", {"imports": [{"module": "super::c::{D, E}"}, {"module": "std::fmt"}]})
    assert rust == [("super::c::{D, E}", ("rust:a::c", "rust:a"))]
    module = import_keys("src/a/mod.rs", {"definitions": [{"kind": "module", "name": "d", "body": "none"}]})
    assert module == [("mod d", ("rust:a::d",))]
    assert import_keys("A.java", {"imports": [{"module": "org.x.*"}]}) == [("org.x.*", ("java.*:org.x",))]


@pytest.mark.parametrize("facts", [None, {}, {"imports": None}, {"imports": [1, {"module": 3}]}, {"definitions": "x"}])
def test_malformed_import_facts_link_nothing(facts: Any) -> None:
    assert import_keys("src/a.ts", facts if isinstance(facts, dict) else {}) == []
