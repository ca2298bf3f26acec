"""``DisclosurePlan@1``: who may receive a cut's candidate, for what, and how often.

Every text field is a short identifier (no spaces, no prose), so a plan cannot carry
source bytes or subject identities; the projection it covers is bound only by digest
and by an opaque local reference.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lychd_core.digests import is_digest, json_digest
from lychd_core.errors import DisclosurePlanError
from lychd_core.inputs import parse_toml, read_input_text

PLAN_SCHEMA = "DisclosurePlan@1"
TOKEN = re.compile(r"^[a-z0-9][a-z0-9._:@/-]{0,127}$")
INVARIANTS = frozenset({"dependencies", "versions", "statuses", "diagnostics", "citations", "owner-identity"})
MAX_USES = 1000
CATEGORY = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
MAX_PLAN_BYTES = 1024 * 1024


def local_ref() -> str:
    """A fresh opaque reference to the restricted local source (random, meaningless elsewhere)."""
    return "local:" + secrets.token_hex(16)


class DisclosurePlan(BaseModel):
    """The recipient, purpose, projection, invariants, profiles, ceiling and target of one cut."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_name: Literal["DisclosurePlan@1"] = Field(default="DisclosurePlan@1", alias="schema")
    consumer_kind: Literal["model", "service"]
    consumer_id: str
    purpose: str
    manifest_digest: str
    restricted_ref: str
    semantic_invariants: tuple[str, ...] = Field(min_length=1)
    threat_model: str
    retention: str
    max_uses: int = Field(ge=1, le=MAX_USES, strict=True)
    target: str
    expires_at: int = Field(ge=0, strict=True, description="Unix seconds after which the plan is void.")
    reversible_categories: tuple[str, ...] = Field(
        default=(),
        description="Sensitive slot categories (like 'owner') a reversible cut may pseudonymize through a "
        "vault lease instead of redacting; empty means irreversible only.",
    )

    @field_validator("consumer_id", "purpose", "threat_model", "retention", "target")
    @classmethod
    def _token(cls, value: str) -> str:
        if not TOKEN.match(value):
            raise ValueError(
                f"must be a short lowercase identifier like 'vuln-triage' (letters, digits, . _ : @ / -), "
                f"got {len(value)} characters that are not one"
            )
        return value

    @field_validator("manifest_digest")
    @classmethod
    def _digest(cls, value: str) -> str:
        if not is_digest(value):
            raise ValueError("expected a digest like 'sha256:<64 lowercase hex>'")
        return value

    @field_validator("restricted_ref")
    @classmethod
    def _ref(cls, value: str) -> str:
        if not re.match(r"^local:[0-9a-f]{32}$", value):
            raise ValueError("expected an opaque local reference 'local:<32 hex>' (see lychd_core.privacy.local_ref)")
        return value

    @field_validator("semantic_invariants")
    @classmethod
    def _invariants(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(value) - INVARIANTS)
        if unknown:
            raise ValueError(f"unknown semantic invariants {unknown}; known: {sorted(INVARIANTS)}")
        return tuple(sorted(set(value)))

    @field_validator("reversible_categories")
    @classmethod
    def _categories(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [item for item in value if not CATEGORY.match(item)]
        if bad:
            raise ValueError(f"{len(bad)} reversible categories are not short lowercase tokens like 'owner'")
        return tuple(sorted(set(value)))

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", by_alias=True)
        if not self.reversible_categories:
            del data["reversible_categories"]  # an irreversible plan keeps its DisclosurePlan@1 digest
        return data

    @property
    def digest(self) -> str:
        return json_digest(self.to_json())

    @classmethod
    def from_json(cls, data: Any) -> DisclosurePlan:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '$'}: {e['msg']}" for e in exc.errors())
            raise DisclosurePlanError(f"invalid {PLAN_SCHEMA}: {problems}") from None


def load_plan(path: str | Path, *, manifest_digest: str | None = None) -> DisclosurePlan:
    """Read a plan from TOML. A plan that omits ``manifest_digest`` or ``restricted_ref`` gets
    them from the preparation (the projection's manifest, a fresh local reference); one that
    names them must match."""
    name = str(path)
    text = read_input_text(name, what="plan", max_bytes=MAX_PLAN_BYTES, error=DisclosurePlanError)
    data = parse_toml(text, source=name, error=DisclosurePlanError)
    if manifest_digest is not None:
        given = data.setdefault("manifest_digest", manifest_digest)
        if given != manifest_digest:
            raise DisclosurePlanError(f"{path}: manifest_digest does not match the projection being prepared")
    data.setdefault("restricted_ref", local_ref())
    return DisclosurePlan.from_json(data)
