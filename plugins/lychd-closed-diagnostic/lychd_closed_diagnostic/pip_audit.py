"""Import ``pip-audit --format json`` output into ``closed-diagnostic@1`` records.

Each dependency becomes records of name, version, status, vulnerability id, alias
and fix version, with the report's owner in the owner slot. Prose (vulnerability
descriptions) and dependencies pip-audit skipped become declared omissions, counted
in the importer's receipt; the importer never copies prose into the records.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from lychd_closed_diagnostic.censor import GRAMMAR
from lychd_core.digests import json_digest, sha256_digest
from lychd_core.errors import LychdError
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy import (
    CallProjection,
    DisclosurePlan,
    OperationCount,
    TransformationReceipt,
    next_receipt,
)

IMPORTER = "pip-audit-import@1"
MAX_REPORT_BYTES = 64 * 1024 * 1024
MAX_RECORDS = 1_000_000


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
    if not isinstance(value, str) or not value:
        raise ReportError(f"{where} must be a non-empty string")
    return value


def _dependencies(data: Any) -> list[Any]:
    deps = data.get("dependencies") if isinstance(data, dict) else data
    if not isinstance(deps, list):
        raise ReportError("expected pip-audit JSON: an object with a 'dependencies' list")
    return deps


def import_report(data: bytes, owner: str, label: PrivatizationLabel) -> ImportedReport:
    """Records for one report about ``owner``'s project, labelled ``label``; a malformed report refuses."""
    if len(data) > MAX_REPORT_BYTES:
        raise ReportError(f"the report has {len(data)} bytes; the bound is {MAX_REPORT_BYTES}")
    if not GRAMMAR.owner_re.fullmatch(owner):
        raise ReportError("the owner must be a project name of letters, digits, '.', '_' and '-'")
    try:
        parsed = json.loads(data.decode("utf-8"), parse_float=lambda _: _reject_float())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = getattr(exc, "pos", 0)
        raise ReportError(f"the report is not UTF-8 JSON: {type(exc).__name__} at position {where}") from None
    omissions: Counter[str] = Counter()
    lines = [GRAMMAR.header]
    slot = f"owner={owner}"
    for index, dep in enumerate(_dependencies(parsed)):
        where = f"dependencies[{index}]"
        if not isinstance(dep, dict):
            raise ReportError(f"{where} must be an object")
        name = _field(dep.get("name"), f"{where}.name")
        if "skip_reason" in dep:
            omissions["self" if name.lower() == owner.lower() else "skipped-dependency"] += 1
            continue
        version = _field(dep.get("version"), f"{where}.version")
        vulns = dep.get("vulns", [])
        if not isinstance(vulns, list):
            raise ReportError(f"{where}.vulns must be a list")
        if not vulns:
            lines.append(f"{name} {version} clean - - - {slot}")
        for number, vuln in enumerate(vulns):
            if not isinstance(vuln, dict):
                raise ReportError(f"{where}.vulns[{number}] must be an object")
            vuln_id = _field(vuln.get("id"), f"{where}.vulns[{number}].id")
            aliases = [_field(a, f"{where}.vulns[{number}].aliases") for a in vuln.get("aliases", [])] or ["-"]
            fixes = [_field(f, f"{where}.vulns[{number}].fix_versions") for f in vuln.get("fix_versions", [])] or ["-"]
            lines += [f"{name} {version} vulnerable {vuln_id} {a} {f} {slot}" for a in aliases for f in fixes]
            if vuln.get("description"):
                omissions["description"] += 1
        if len(lines) > MAX_RECORDS:
            raise ReportError(f"the report yields more than {MAX_RECORDS} records")
    projection = CallProjection.of_texts("artifacts", ["\n".join(lines) + "\n"], label)
    return ImportedReport(projection, sha256_digest(data), dict(omissions), len(lines) - 1)


def _reject_float() -> Any:
    raise ReportError("the report holds a floating-point number; pip-audit JSON has none")


class PipAuditImporter:
    """The ``pip-audit`` report format of ``closed-diagnostic@1``."""

    name = "pip-audit"

    def import_report(self, data: bytes, owner: str, label: PrivatizationLabel) -> ImportedReport:
        return import_report(data, owner, label)
