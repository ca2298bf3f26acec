"""Builders for Privacy Cut tests: the example report, its vocabulary, plan and label.

The owner is one of ``tests.support.sensitive.SENSITIVE``; the root conftest fails any
test whose captured output or log contains one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lychd_closed_diagnostic import PROFILE, ClosedDiagnosticOptions, import_report

from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy import CallProjection, ClosedVocabulary, DisclosurePlan, SealAuthority, local_ref
from lychd_core.privacy.prepare import PreparedCut, cut_policy_digest, prepare_cut
from tests.support.sensitive import SENSITIVE, captured

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "privacy"
OWNER = SENSITIVE[0]
NOW = 1_800_000_000
VOCABULARY = ClosedVocabulary.load(FIXTURES / "vocabulary.toml")
OPTIONS = ClosedDiagnosticOptions()
POLICY = cut_policy_digest(PROFILE.pin, OPTIONS, PROFILE.grammar, VOCABULARY)
REPORT_LABEL = PrivatizationLabel(
    privacy_class=PrivacyClass.PRIVATE,
    weight=5000,
    categories=frozenset({"vulnerability-report"}),
    material_parents=frozenset({"reports/pip-audit.json@sha256:" + "0" * 64}),
    lineage_known=True,
)


def report_bytes() -> bytes:
    return (FIXTURES / "pip-audit.json").read_bytes()


def report_projection(owner: str = OWNER) -> CallProjection:
    return import_report(report_bytes(), owner, REPORT_LABEL).projection


def record_text(*records: str, owner: str = OWNER) -> str:
    """A closed-diagnostic text with the given record heads, all owned by ``owner``."""
    return "closed-diagnostic@1\n" + "".join(f"{head} owner={owner}\n" for head in records)


def projection_of(*texts: str, label: PrivatizationLabel = REPORT_LABEL) -> CallProjection:
    return CallProjection.of_texts("artifacts", list(texts), label)


def plan_for(source: CallProjection, **changes: Any) -> DisclosurePlan:
    data: dict[str, Any] = {
        "consumer_kind": "model",
        "consumer_id": "hosted-llm",
        "purpose": "vulnerability-triage",
        "manifest_digest": source.manifest_digest,
        "restricted_ref": local_ref(),
        "semantic_invariants": ["citations", "dependencies", "diagnostics", "statuses", "versions"],
        "threat_model": "honest-but-curious-provider",
        "retention": "no-retention",
        "max_uses": 2,
        "target": "hosted",
        "expires_at": NOW + 3600,
    }
    return DisclosurePlan.from_json(data | changes)


def prepare(
    source: CallProjection, authority: SealAuthority | None = None, *, now: int = NOW, **plan_changes: Any
) -> PreparedCut:
    return prepare_cut(
        PROFILE, source, plan_for(source, **plan_changes), VOCABULARY, OPTIONS, authority or SealAuthority(), now=now
    )


def evidence(prepared: PreparedCut) -> str:
    """Everything a preparation emits as evidence, printed so the capture scan sees it."""
    text = json.dumps(prepared.to_json(), sort_keys=True)
    captured(text)
    return text
