"""Import ``pip-audit --format json`` output into ``closed-diagnostic@1`` records.

Each dependency becomes records of name, version, status, vulnerability id, alias
and fix version, with the report's owner in the owner slot. Prose (vulnerability
descriptions) and dependencies pip-audit skipped become declared omissions, counted
in the importer's receipt; the importer never copies prose into the records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from lychd_closed_diagnostic.censor import GRAMMAR
from lychd_core.digests import json_digest, sha256_digest
from lychd_core.errors import LychdError
from lychd_core.inputs import parse_json
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy import (
    CallProjection,
    DisclosurePlan,
    OperationCount,
    TransformationReceipt,
    next_receipt,
)
from lychd_core.privacy.closed_vocabulary import ITEM
from lychd_core.privacy.grammar import MAX_RECORDS

IMPORTER = "pip-audit-import@1"
MAX_REPORT_BYTES = 64 * 1024 * 1024
MAX_TEXT_BYTES = 256 * 1024 * 1024


class ReportError(LychdError, ValueError):
    """A pip-audit report is not valid ``pip-audit --format json`` output."""


@dataclass(frozen=True, slots=True)
class ImportedReport:
    """The projection of one report, the report's digest, and what was omitted (counts by category)."""

    projection: CallProjection
    report_digest: str
    omissions: dict[str, int]
    records: int

    def receipt(self, plan: DisclosurePlan, policy_digest: str) -> TransformationReceipt:
        """The importer's (non-terminal) receipt: report bytes in, projection out, omissions counted."""
        operations = [OperationCount(operation="encode", category="record", count=self.records)] if self.records else []
        operations += [
            OperationCount(operation="omit", category=category, count=count)
            for category, count in sorted(self.omissions.items())
        ]
        return next_receipt(
            (),
            plan_digest=plan.digest,
            input_digest=self.report_digest,
            output_digest=self.projection.digest,
            transformer=IMPORTER,
            policy_digest=policy_digest,
            operations=operations,
            residual_label_digest=json_digest(self.projection.label.to_json()),
            expires_at=plan.expires_at,
            terminal=False,
        )


def _field(value: Any, where: str) -> str:
    """A record field: one plain ASCII token (what a vocabulary item can be), so it cannot add a
    line, a position or prose to the records."""
    if not isinstance(value, str) or not ITEM.fullmatch(value):
        raise ReportError(
            f"{where} must be one plain ASCII token like '3.1.2' (letters, digits, . _ + ! : ~ -; "
            "no spaces or newlines, at most 128 characters)"
        )
    return value


def _tokens(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise ReportError(f"{where} must be a list of strings")
    return [_field(item, f"{where}[{index}]") for index, item in enumerate(value)] or ["-"]


def _dependencies(data: Any) -> list[Any]:
    deps = data.get("dependencies") if isinstance(data, dict) else data
    if not isinstance(deps, list):
        raise ReportError("expected pip-audit JSON: an object with a 'dependencies' list")
    return deps


@dataclass(slots=True)
class _Records:
    """The record lines being built, bounded in count and bytes before each product is expanded."""

    slot: str
    lines: list[str]
    count: int = 0
    size: int = 0

    def reserve(self, count: int, size: int) -> None:
        if self.count + count > MAX_RECORDS:
            raise ReportError(f"the report yields more than {MAX_RECORDS} records (aliases x fix versions)")
        if self.size + size > MAX_TEXT_BYTES:
            raise ReportError(f"the report's records would exceed {MAX_TEXT_BYTES} bytes")
        self.count += count
        self.size += size

    def vulnerable(self, head: str, aliases: list[str], fixes: list[str]) -> None:
        """One record per alias and fix version, counted and sized before any is built."""
        base = len(head) + len(self.slot) + 3  # three separators around alias and fix, one newline
        pairs = len(aliases) * len(fixes)
        size = pairs * base + len(fixes) * sum(map(len, aliases)) + len(aliases) * sum(map(len, fixes))
        self.reserve(pairs, size)
        self.lines += [f"{head} {a} {f} {self.slot}" for a in aliases for f in fixes]


def import_report(data: bytes, owner: str, label: PrivatizationLabel) -> ImportedReport:
    """Records for one report about ``owner``'s project, labelled ``label``; a malformed report refuses."""
    if len(data) > MAX_REPORT_BYTES:
        raise ReportError(f"the report has {len(data)} bytes; the bound is {MAX_REPORT_BYTES}")
    if not GRAMMAR.owner_re.fullmatch(owner):
        raise ReportError("the owner must be a project name of letters, digits, '.', '_' and '-'")
    parsed = parse_json(data, source="the report", error=ReportError, allow_floats=False)
    omissions: Counter[str] = Counter()
    records = _Records(f"owner={owner}", [GRAMMAR.header])
    for index, dep in enumerate(_dependencies(parsed)):
        where = f"dependencies[{index}]"
        if not isinstance(dep, dict):
            raise ReportError(f"{where} must be an object")
        if "skip_reason" in dep:
            name = dep.get("name")
            if not isinstance(name, str):
                raise ReportError(f"{where}.name must be a string")
            omissions["self" if name.lower() == owner.lower() else "skipped-dependency"] += 1
            continue
        name = _field(dep.get("name"), f"{where}.name")
        version = _field(dep.get("version"), f"{where}.version")
        vulns = dep.get("vulns", [])
        if not isinstance(vulns, list):
            raise ReportError(f"{where}.vulns must be a list")
        if not vulns:
            line = f"{name} {version} clean - - - {records.slot}"
            records.reserve(1, len(line) + 1)
            records.lines.append(line)
        for number, vuln in enumerate(vulns):
            at = f"{where}.vulns[{number}]"
            if not isinstance(vuln, dict):
                raise ReportError(f"{at} must be an object")
            head = f"{name} {version} vulnerable {_field(vuln.get('id'), f'{at}.id')}"
            aliases = _tokens(vuln.get("aliases", []), f"{at}.aliases")
            records.vulnerable(head, aliases, _tokens(vuln.get("fix_versions", []), f"{at}.fix_versions"))
            if vuln.get("description"):
                omissions["description"] += 1
    projection = CallProjection.of_texts("artifacts", ["\n".join(records.lines) + "\n"], label)
    return ImportedReport(projection, sha256_digest(data), dict(omissions), records.count)


class PipAuditImporter:
    """The ``pip-audit`` report format of ``closed-diagnostic@1``."""

    name = "pip-audit"

    def import_report(self, data: bytes, owner: str, label: PrivatizationLabel) -> ImportedReport:
        return import_report(data, owner, label)
