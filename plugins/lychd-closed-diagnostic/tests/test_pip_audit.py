"""The pip-audit importer: records for every audited dependency, prose as declared omissions."""

from __future__ import annotations

import json

import pytest
from lychd_closed_diagnostic import PROFILE, ReportError, import_report

from lychd_core.labels import PrivacyClass, PrivatizationLabel

LABEL = PrivatizationLabel(privacy_class=PrivacyClass.PRIVATE, weight=0, lineage_known=True)
REPORT = {
    "dependencies": [
        {
            "name": "jinja2",
            "version": "3.1.2",
            "vulns": [
                {
                    "id": "GHSA-h5c8-rqwp-cp95",
                    "fix_versions": ["3.1.3"],
                    "aliases": ["CVE-2024-22195"],
                    "description": "prose that must not travel",
                }
            ],
        },
        {"name": "requests", "version": "2.31.0", "vulns": []},
        {"name": "zz-private-owner", "skip_reason": "Dependency not found on PyPI: zz-private-owner (0.1)"},
        {"name": "zz-internal-lib", "skip_reason": "Dependency not found on PyPI"},
    ],
    "fixes": [],
}


def encode(value: object) -> bytes:
    return json.dumps(value).encode()


def test_records_carry_dependencies_statuses_diagnostics_citations_and_fixes() -> None:
    imported = import_report(encode(REPORT), "zz-private-owner", LABEL)
    (item,) = imported.projection.items
    assert item.section == "artifacts" and item.label == LABEL
    assert item.text == (
        "closed-diagnostic@1\n"
        "jinja2 3.1.2 vulnerable GHSA-h5c8-rqwp-cp95 CVE-2024-22195 3.1.3 owner=zz-private-owner\n"
        "requests 2.31.0 clean - - - owner=zz-private-owner\n"
    )
    assert "prose" not in item.text and "zz-internal-lib" not in item.text
    assert imported.omissions == {"description": 1, "self": 1, "skipped-dependency": 1}
    assert imported.projection.items[0].text.count("\n") == 3


def test_the_legacy_list_form_and_multiple_aliases_and_fixes() -> None:
    vuln = {"id": "GHSA-h5c8-rqwp-cp95", "fix_versions": ["3.1.3", "3.1.4"], "aliases": ["CVE-1", "CVE-2"]}
    imported = import_report(encode([{"name": "jinja2", "version": "3.1.2", "vulns": [vuln]}]), "acme", LABEL)
    assert imported.projection.items[0].text.count("\n") == 1 + 4


def test_the_importer_is_registered_on_the_profile() -> None:
    imported = PROFILE.importers["pip-audit"].import_report(encode(REPORT), "zz-private-owner", LABEL)
    assert imported.projection.items[0].text.count("\n") == 3


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"{not json", "malformed JSON"),
        (b'{"dependencies": [{"name": "a", "version": 1.5}]}', "floats are not allowed"),
        (b'{"dependencies": "many"}', "dependencies"),
        (b'{"dependencies": [42]}', r"dependencies\[0\] must be an object"),
        (b'{"dependencies": [{"version": "1"}]}', r"dependencies\[0\]\.name"),
        (b'{"dependencies": [{"name": "a"}]}', r"dependencies\[0\]\.version"),
        (b'{"dependencies": [{"name": "a", "version": "1", "vulns": {}}]}', "vulns must be a list"),
        (b'{"dependencies": [{"name": "a", "version": "1", "vulns": [{"id": ""}]}]}', "id must be"),
    ],
)
def test_malformed_reports_are_typed_errors(data: bytes, match: str) -> None:
    with pytest.raises(ReportError, match=match):
        import_report(data, "acme", LABEL)


@pytest.mark.parametrize("owner", ["", "two words", "acme\u200b", "-leading"])
def test_the_owner_must_fit_the_slot(owner: str) -> None:
    with pytest.raises(ReportError, match="owner"):
        import_report(encode(REPORT), owner, LABEL)
