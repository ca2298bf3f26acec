"""lychd-closed-diagnostic: ``closed-diagnostic@1``, its reversible sibling, and a pip-audit importer."""

from lychd_closed_diagnostic.censor import GRAMMAR, OWNER_CATEGORY, censor_texts, owner_spans
from lychd_closed_diagnostic.pip_audit import IMPORTER, ImportedReport, ReportError, import_report
from lychd_closed_diagnostic.profile import PROFILE, ClosedDiagnosticOptions, ClosedDiagnosticProfile
from lychd_closed_diagnostic.reversible import (
    REVERSIBLE_PROFILE,
    ReversibleClosedDiagnosticProfile,
    ReversibleOptions,
)

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
