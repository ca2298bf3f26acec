"""lychd-closed-diagnostic: the ``closed-diagnostic@1`` privacy profile and a pip-audit importer."""

from lychd_closed_diagnostic.censor import GRAMMAR, OWNER_CATEGORY, censor_texts, owner_spans
from lychd_closed_diagnostic.pip_audit import IMPORTER, ImportedReport, ReportError, import_report
from lychd_closed_diagnostic.profile import PROFILE, ClosedDiagnosticOptions, ClosedDiagnosticProfile

__all__ = [
    "GRAMMAR",
    "IMPORTER",
    "OWNER_CATEGORY",
    "PROFILE",
    "ClosedDiagnosticOptions",
    "ClosedDiagnosticProfile",
    "ImportedReport",
    "ReportError",
    "censor_texts",
    "import_report",
    "owner_spans",
]
