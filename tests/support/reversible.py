"""Builders for reversible-cut tests: the reversible profile, a plan that marks ``owner``
reversible, lease terms, the output model a remote model answers with, and its schema."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lychd_closed_diagnostic import REVERSIBLE_PROFILE, ReversibleOptions
from pydantic import BaseModel

from lychd_core.privacy import CallProjection, SealAuthority
from lychd_core.privacy.reversible import PreparedReversibleCut, prepare_reversible_cut
from lychd_core.privacy.vault import MarkedPath, RehydrationSchema, Vault
from lychd_core.privacy.vault.lease import LeaseTerms
from tests.support.cuts import NOW, VOCABULARY, plan_for
from tests.support.vaults import Clock

OPTIONS = ReversibleOptions()
PURPOSE = "vulnerability-triage"
INVARIANTS = ["dependencies", "owner-identity", "statuses"]
SLOT_TOKEN = re.compile(r"owner=(<<ps:[^>\s]+>>)")


class Finding(BaseModel):
    dependency: str
    owner: str


class Triage(BaseModel):
    """What the remote model answers: the owner and, per finding, whose dependency it is."""

    owner: str
    summary: str
    findings: list[Finding]


SCHEMA = RehydrationSchema(
    name="triage",
    revision=1,
    marks=(
        MarkedPath(path="$.owner", category="owner", max_tokens=1, purpose=PURPOSE),
        MarkedPath(path="$.findings[*].owner", category="owner", max_tokens=16, purpose=PURPOSE),
    ),
)


def terms(**changes: Any) -> LeaseTerms:
    values: dict[str, Any] = {
        "run_id": "run-1",
        "attempt": 1,
        "station": "station-a",
        "schema_digest": SCHEMA.digest,
        "remote_deadline_at": NOW + 600,
        "return_window": 300,
        "retention_max": 3600,
    }
    return LeaseTerms(**(values | changes))


def open_vault(tmp: Path, clock: Clock | None = None) -> Vault:
    return Vault.open(tmp / "state" / "vault.sqlite3", tmp / "keys" / "vault.keys", clock=clock or Clock(NOW))


def prepare_reversible(
    vault: Vault,
    source: CallProjection,
    authority: SealAuthority | None = None,
    *,
    lease_terms: LeaseTerms | None = None,
    **plan_changes: Any,
) -> PreparedReversibleCut:
    plan = plan_for(source, **({"reversible_categories": ["owner"], "semantic_invariants": INVARIANTS} | plan_changes))
    return prepare_reversible_cut(
        REVERSIBLE_PROFILE, source, plan, VOCABULARY, OPTIONS, authority or SealAuthority(), vault,
        lease_terms or terms(), now=NOW,
    )  # fmt: skip


def slot_tokens(prepared: PreparedReversibleCut) -> list[str]:
    """The tokens standing in the candidate's owner slots, in order."""
    return [token for item in prepared.prepared.candidate.items for token in SLOT_TOKEN.findall(item.text)]
