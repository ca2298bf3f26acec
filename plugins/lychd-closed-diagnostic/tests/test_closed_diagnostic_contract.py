"""closed-diagnostic honours the privacy-profile contract, and proposes only owner spans."""

from __future__ import annotations

from pathlib import Path

import pytest
from lychd_closed_diagnostic import GRAMMAR, PROFILE, ClosedDiagnosticOptions, ClosedDiagnosticProfile

from lychd_core.errors import CutReason, CutRefused, PrivacyRefusal
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.testing import PrivacyProfileContract

VOCABULARY = """schema = "closed-vocabulary@1"
[items]
dependencies = ["jinja2", "requests"]
versions = ["3.1.2", "3.1.3", "2.31.0"]
statuses = ["clean", "vulnerable"]
diagnostics = ["GHSA-h5c8-rqwp-cp95"]
citations = ["CVE-2024-22195"]
"""
TEXT = (
    "closed-diagnostic@1\n"
    "jinja2 3.1.2 vulnerable GHSA-h5c8-rqwp-cp95 CVE-2024-22195 3.1.3 owner=zz-private-owner\n"
    "requests 2.31.0 clean - - - owner=zz-private-owner\n"
)
LABEL = PrivatizationLabel(
    privacy_class=PrivacyClass.PRIVATE, weight=0, categories=frozenset({"diagnostic"}), lineage_known=True
)


class TestClosedDiagnosticContract(PrivacyProfileContract):
    @pytest.fixture
    def privacy_profile(self) -> ClosedDiagnosticProfile:
        return PROFILE

    @pytest.fixture
    def sample_text(self) -> str:
        return TEXT


def options(tmp_path: Path) -> ClosedDiagnosticOptions:
    path = tmp_path / "vocabulary.toml"
    path.write_text(VOCABULARY, encoding="utf-8")
    return ClosedDiagnosticOptions(vocabulary=str(path))


def test_identity_is_exact() -> None:
    assert PROFILE.name == "closed-diagnostic" and PROFILE.revision == 1 and PROFILE.grammar is GRAMMAR
    assert GRAMMAR.name == "closed-diagnostic@1"


def test_propose_returns_exactly_the_owner_spans(tmp_path: Path) -> None:
    findings = PROFILE.propose(TEXT, LABEL, options(tmp_path))
    assert [TEXT[f.start : f.end] for f in findings] == ["zz-private-owner"] * 2
    assert {(f.category, f.operation) for f in findings} == {("owner", "redact")}


def test_propose_without_a_vocabulary_refuses_rather_than_guess() -> None:
    with pytest.raises(PrivacyRefusal, match="vocabulary"):
        PROFILE.propose(TEXT, LABEL, ClosedDiagnosticOptions())


def test_propose_refuses_prose_and_unknown_lineage(tmp_path: Path) -> None:
    with pytest.raises(CutRefused) as caught:
        PROFILE.propose("Contact alice@example.com about ticket 42.", LABEL, options(tmp_path))
    assert caught.value.reason is CutReason.UNCOVERED_TEXT
    with pytest.raises(CutRefused) as caught:
        PROFILE.propose(TEXT, PrivatizationLabel.restricted_unknown(), options(tmp_path))
    assert caught.value.reason is CutReason.UNKNOWN_LINEAGE


def test_options_are_strict() -> None:
    with pytest.raises(ValueError, match="max_parents"):
        ClosedDiagnosticOptions.model_validate({"max_parents": 0})
    with pytest.raises(ValueError, match="detector"):
        ClosedDiagnosticOptions.model_validate({"detector": "regex"})
