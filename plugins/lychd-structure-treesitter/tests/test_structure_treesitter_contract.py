"""Every tree-sitter profile passes the projection-profile contract suite, as a third party would run it."""

from __future__ import annotations

import pytest
from lychd_structure_treesitter import PROFILES, TreeSitterProfile

from lychd_core.config import default_config
from lychd_core.testing import ProjectionProfileContract

BY_NAME = {profile.name: profile for profile in PROFILES}
SAMPLES = {
    "structure.javascript": b"/** Greets. */\nexport function greet(name) {\n  return 'hi ' + name;\n}\n",
    "structure.typescript": b"export const App = (props: { name: string }) => <div>{props.name}</div>;\n",
    "structure.go": b"package demo\n\n// Greet greets.\nfunc Greet(name string) string { return name }\n",
    "structure.rust": b"/// Greets.\npub fn greet(name: &str) -> String {\n    name.to_string()\n}\n",
    "structure.java": b"/** Greets. */\npublic class Greeter {\n  public String greet(String n) { return n; }\n}\n",
}


class TestJavaScript(ProjectionProfileContract):
    @pytest.fixture
    def profile(self) -> TreeSitterProfile:
        return BY_NAME["structure.javascript"]

    @pytest.fixture
    def sample_bytes(self) -> bytes:
        return SAMPLES["structure.javascript"]


class TestTypeScript(TestJavaScript):
    """Its first media type (sorted) is text/x-tsx, so the sample is TSX."""

    @pytest.fixture
    def profile(self) -> TreeSitterProfile:
        return BY_NAME["structure.typescript"]

    @pytest.fixture
    def sample_bytes(self) -> bytes:
        return SAMPLES["structure.typescript"]


class TestGo(TestJavaScript):
    @pytest.fixture
    def profile(self) -> TreeSitterProfile:
        return BY_NAME["structure.go"]

    @pytest.fixture
    def sample_bytes(self) -> bytes:
        return SAMPLES["structure.go"]


class TestRust(TestJavaScript):
    @pytest.fixture
    def profile(self) -> TreeSitterProfile:
        return BY_NAME["structure.rust"]

    @pytest.fixture
    def sample_bytes(self) -> bytes:
        return SAMPLES["structure.rust"]


class TestJava(TestJavaScript):
    @pytest.fixture
    def profile(self) -> TreeSitterProfile:
        return BY_NAME["structure.java"]

    @pytest.fixture
    def sample_bytes(self) -> bytes:
        return SAMPLES["structure.java"]


REVISIONS = {
    "structure.javascript": 3,  # 2: CommonJS exports; 3: require() imports
    "structure.typescript": 3,  # 2: declare global blocks, CommonJS exports; 3: require() imports
    "structure.go": 2,  # 2: the package doc
    "structure.rust": 2,  # 2: //! inner docs
    "structure.java": 1,
}


def test_every_profile_has_its_revision_and_names_its_grammars() -> None:
    assert {p.name for p in PROFILES} == set(SAMPLES) == set(REVISIONS)
    rules = default_config().projection.rules
    for profile in PROFILES:
        assert profile.revision == REVISIONS[profile.name]
        assert profile.parser_version.startswith("tree-sitter ") and "tree-sitter-" in profile.parser_version
        for media_type in profile.media_types:  # the default configuration pins what is installed
            assert (rules[media_type].profile, rules[media_type].revision) == (profile.name, profile.revision)


def test_typescript_declares_its_own_extensions() -> None:
    assert dict(BY_NAME["structure.typescript"].file_media_types) == {
        ".mts": "text/x-typescript",
        ".cts": "text/x-typescript",
    }
