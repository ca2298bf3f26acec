"""The pip-audit importer's bounds (issue 27, finding 6), and a fuzz of its input.

An 81 KB report once expanded to 1.47 GB of records before the record bound was checked
(aliases x fix versions multiplied first), and a version holding a newline added records
of its own that the cut then passed.
"""

from __future__ import annotations

import json
import re
import tracemalloc
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_closed_diagnostic import GRAMMAR, ReportError, import_report, pip_audit

from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy.grammar import MAX_RECORDS

LABEL = PrivatizationLabel(privacy_class=PrivacyClass.PRIVATE, weight=0, lineage_known=True)
RECORD = re.compile(r"[^ \n]+(?: [^ \n]+){5} owner=acme")


def report(*deps: dict[str, Any]) -> bytes:
    return json.dumps({"dependencies": list(deps)}).encode()


def test_aliases_times_fix_versions_are_bounded_before_they_are_expanded() -> None:
    vuln = {
        "id": "GHSA-x",
        "aliases": [f"CVE-{i}" for i in range(1100)],
        "fix_versions": [f"{i}.0" for i in range(1000)],
    }
    data = report({"name": "jinja2", "version": "3.1.2", "vulns": [vuln]})
    assert len(data) < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(ReportError, match="aliases x fix versions"):
            import_report(data, "acme", LABEL)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, f"{peak} bytes traced: the records were built before the bound"


def test_the_record_and_byte_bounds_count_across_dependencies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pip_audit, "MAX_RECORDS", 1000)  # the same code at a size a test can afford
    vuln = {"id": "GHSA-x", "aliases": [f"CVE-{i}" for i in range(10)], "fix_versions": [f"{i}.0" for i in range(25)]}
    deps = [{"name": f"d{i}", "version": "1", "vulns": [vuln]} for i in range(4)]
    assert import_report(report(*deps), "acme", LABEL).records == 1000
    with pytest.raises(ReportError, match="more than 1000 records"):
        import_report(report(*deps, {"name": "e", "version": "1", "vulns": []}), "acme", LABEL)
    monkeypatch.setattr(pip_audit, "MAX_TEXT_BYTES", 10_000)
    with pytest.raises(ReportError, match="exceed 10000 bytes"):
        import_report(report(*deps), "acme", LABEL)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("version", "1.0\nevil 1.0 clean - - - owner=x"),
        ("version", "1.0 extra"),
        ("name", "jinja2\r"),
        ("version", "x" * 129),
        ("name", "jinj\u0430"),
    ],
)
def test_a_field_that_is_not_one_token_is_refused(field: str, value: str) -> None:
    dep = {"name": "jinja2", "version": "3.1.2", "vulns": []} | {field: value}
    with pytest.raises(ReportError, match=rf"dependencies\[0\]\.{field} must be one plain ASCII token"):
        import_report(report(dep), "acme", LABEL)


def test_aliases_and_fix_versions_must_be_lists_of_tokens() -> None:
    base = {"id": "GHSA-x"}
    for bad in ({"aliases": "CVE-1"}, {"fix_versions": ["1.0\n"]}, {"aliases": [1]}):
        with pytest.raises(ReportError):
            import_report(report({"name": "a", "version": "1", "vulns": [base | bad]}), "acme", LABEL)


TOKEN = st.sampled_from(["jinja2", "3.1.2", "CVE-1", "GHSA-x", "-", "", " ", "\n", "a b", "x\u0430", "1.0+local"])
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | TOKEN,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TOKEN, inner, max_size=4),
    max_leaves=12,
)
VULN = st.fixed_dictionaries(
    {"id": TOKEN},
    optional={"aliases": st.lists(TOKEN, max_size=4) | JSONISH, "fix_versions": st.lists(TOKEN, max_size=4) | JSONISH,
              "description": JSONISH},
)  # fmt: skip
DEP = st.fixed_dictionaries(
    {"name": TOKEN}, optional={"version": TOKEN, "vulns": st.lists(VULN, max_size=3) | JSONISH, "skip_reason": TOKEN}
)
REPORTS = st.one_of(
    st.fixed_dictionaries({"dependencies": st.lists(DEP | JSONISH, max_size=5)}).map(json.dumps),
    JSONISH.map(json.dumps),
    st.text(max_size=30),
)


@settings(max_examples=150, deadline=None)
@given(REPORTS)
def test_fuzzed_reports_import_to_the_grammar_or_refuse(text: str) -> None:
    try:
        imported = import_report(text.encode("utf-8", "surrogatepass"), "acme", LABEL)
    except ReportError:
        return
    body = imported.projection.items[0].text
    lines = body.split("\n")
    assert lines[0] == GRAMMAR.header and lines[-1] == ""
    assert len(lines) - 2 == imported.records <= MAX_RECORDS
    assert all(RECORD.fullmatch(line) for line in lines[1:-1]), body
