"""Every tree-sitter profile passes the projection-profile contract suite, as a third party would run it."""

from __future__ import annotations

import pytest
from lychd_structure_treesitter import PROFILES, TreeSitterProfile

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


def test_every_profile_is_revision_one_and_names_its_grammars() -> None:
    assert {p.name for p in PROFILES} == set(SAMPLES)
    for profile in PROFILES:
        assert profile.revision == 1
        assert profile.parser_version.startswith("tree-sitter ") and "tree-sitter-" in profile.parser_version


def test_typescript_declares_its_own_extensions() -> None:
    assert dict(BY_NAME["structure.typescript"].file_media_types) == {
        ".mts": "text/x-typescript",
        ".cts": "text/x-typescript",
    }
