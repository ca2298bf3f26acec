"""lychd-closed-diagnostic: ``closed-diagnostic@1``, its reversible sibling, and a pip-audit importer.

Names load on first use: ``lychd assemble`` imports this package for its registration hook
on every cold start, and the reversible profile's module needs the vault (cryptography) only
when a cut is prepared (issue 30, ``benchmarks/bench_cold_assemble.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lychd_core.lazy import lazy_attribute

if TYPE_CHECKING:
    from lychd_closed_diagnostic.censor import GRAMMAR, OWNER_CATEGORY, censor_texts, owner_spans
    from lychd_closed_diagnostic.pip_audit import IMPORTER, ImportedReport, ReportError, import_report
    from lychd_closed_diagnostic.profile import PROFILE, ClosedDiagnosticOptions, ClosedDiagnosticProfile
    from lychd_closed_diagnostic.reversible import (
        REVERSIBLE_PROFILE,
        ReversibleClosedDiagnosticProfile,
        ReversibleOptions,
    )

_EXPORTS = {
    "lychd_closed_diagnostic.censor": "GRAMMAR OWNER_CATEGORY censor_texts owner_spans",
    "lychd_closed_diagnostic.pip_audit": "IMPORTER ImportedReport ReportError import_report",
    "lychd_closed_diagnostic.profile": "PROFILE ClosedDiagnosticOptions ClosedDiagnosticProfile",
    "lychd_closed_diagnostic.reversible": "REVERSIBLE_PROFILE ReversibleClosedDiagnosticProfile ReversibleOptions",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, name, _EXPORTS)


__all__ = [
    "GRAMMAR",
    "IMPORTER",
    "OWNER_CATEGORY",
    "PROFILE",
    "REVERSIBLE_PROFILE",
    "ClosedDiagnosticOptions",
    "ClosedDiagnosticProfile",
    "ImportedReport",
    "ReportError",
    "ReversibleClosedDiagnosticProfile",
    "ReversibleOptions",
    "censor_texts",
    "import_report",
    "owner_spans",
]
