"""Shared pieces for the vault tests: a settable clock, a lease request, a schema, a candidate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lychd_core.digests import json_digest
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy.vault import (
    ClaimRequest,
    CutBinding,
    LeaseGrant,
    LeaseRequest,
    MarkedPath,
    RehydrationSchema,
    SensitiveValue,
    Vault,
)

T0 = 1_800_000_000
OWNER = "Acme Secret Holdings GmbH"
EMAIL = "ops@acme.example"
SOURCE_LABEL = PrivatizationLabel(
    privacy_class=PrivacyClass.PRIVATE,
    weight=7000,
    categories=frozenset({"owner"}),
    subjects=frozenset({"acme"}),
    material_parents=frozenset({json_digest("report")}),
    lineage_known=True,
)
SCHEMA = RehydrationSchema(
    name="triage",
    revision=1,
    marks=(
        MarkedPath(path="$.owner", category="owner", max_tokens=1, purpose="triage"),
        MarkedPath(path="$.findings[*].contact", category="email", max_tokens=2, purpose="triage"),
        MarkedPath(path="$.audit", category="owner", max_tokens=1, purpose="audit"),
    ),
)


@dataclass
class Clock:
    now: int = T0

    def __call__(self) -> int:
        return self.now


def cut_binding(**changes: Any) -> CutBinding:
    values: dict[str, Any] = {
        "cut_id": "cut-1",
        "cut_digest": json_digest("cut-1"),
        "plan_digest": json_digest("plan-1"),
        "source_digest": json_digest("source-1"),
        "target": "remote-llm",
        "purpose": "triage",
        "cut_expires_at": T0 + 3600,
        "source_expires_at": T0 + 7200,
        "source_label": SOURCE_LABEL,
        "verifier": "lychd-core-verifier@1",
        "policy_digest": json_digest("policy-1"),
    }
    values.update(changes)
    return CutBinding(**values)


def lease_request(**changes: Any) -> LeaseRequest:
    values: dict[str, Any] = {
        "cut": cut_binding(),
        "run_id": "run-1",
        "attempt": 1,
        "station": "station-a",
        "schema_digest": SCHEMA.digest,
        "remote_deadline_at": T0 + 600,
        "return_window": 300,
        "retention_max": 86_400,
    }
    values.update(changes)
    return LeaseRequest(**values)


VALUES = (SensitiveValue(category="owner", value=OWNER), SensitiveValue(category="email", value=EMAIL))


def candidate(tokens: tuple[str, ...]) -> str:
    return f"owner={tokens[0]}; contact={tokens[1]}; CVE-2024-0001 fixed in 2.0"


def open_vault(tmp: Path, clock: Clock | None = None, **kwargs: Any) -> Vault:
    return Vault.open(tmp / "state" / "vault.sqlite3", tmp / "keys" / "vault.keys", clock=clock or Clock(), **kwargs)


def new_lease(vault: Vault, values: Sequence[SensitiveValue] = VALUES, **changes: Any) -> LeaseGrant:
    return vault.create_lease(lease_request(**changes), values, candidate)


def tokens_of(grant: LeaseGrant) -> list[str]:
    """The tokens as they appear in the test candidate (owner, email)."""
    owner = grant.candidate.split("owner=")[1].split(";")[0]
    contact = grant.candidate.split("contact=")[1].split(";")[0]
    return [owner, contact]


def claim_for(returned: Any, **changes: Any) -> ClaimRequest:
    values: dict[str, Any] = {
        "principal": "agent-1",
        "run_id": "run-1",
        "attempt": 1,
        "station": "station-a",
        "return_digest": json_digest(returned),
    }
    values.update(changes)
    return ClaimRequest(**values)


def model_return(owner: str, contact: str) -> dict[str, Any]:
    return {"owner": owner, "summary": "upgrade the dependency", "findings": [{"contact": contact, "id": "F1"}]}
