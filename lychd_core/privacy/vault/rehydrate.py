"""The rehydration port's pure half: restore exact issued tokens at marked paths, and its receipt.

Only whole string values at paths the output schema marks for the lease's purpose are
looked at; prose is never searched for token-shaped substrings. A whole value that is an
issued token anywhere else is a wrong-path refusal.
"""

from __future__ import annotations

import hmac
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lychd_core.digests import JsonValue, json_digest
from lychd_core.errors import RehydratedFlowRefused, RehydrationRefused, RejectReason
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy.vault.lease import DigestStr, Name
from lychd_core.privacy.vault.tokens import MapEntry, RehydrationSchema, make_token, parse_token

RECEIPT_SCHEMA = "RehydrationReceipt@1"
REHYDRATED_CONSTRAINTS = frozenset({"local-only", "not-executable", "no-effect", "no-public-delivery", "rehydrated"})


@dataclass(slots=True)
class Restorer:
    """One pass over a quarantined return for one lease."""

    schema: RehydrationSchema
    purpose: str
    namespace: str
    token_key: bytes
    entries: Mapping[int, MapEntry]
    plain: memoryview
    per_path: Counter[str] = field(default_factory=Counter)
    per_category: Counter[str] = field(default_factory=Counter)

    def walk(self, value: Any, path: str = "$") -> Any:
        if isinstance(value, dict):
            return {key: self.walk(item, _child(path, key)) for key, item in value.items()}
        if isinstance(value, list):
            return [self.walk(item, path + "[*]") for item in value]
        if isinstance(value, str):
            return self._leaf(value, path)
        return value

    def _issued(self, text: str) -> MapEntry | None:
        token = parse_token(text)
        if token is None or token.namespace != self.namespace:
            return None
        entry = self.entries.get(token.serial)
        if entry is None or entry.category != token.category:
            return None
        expected = make_token(self.token_key, self.namespace, token.category, token.serial)
        return entry if hmac.compare_digest(expected, text) else None

    def _leaf(self, text: str, path: str) -> str:
        mark = self.schema.mark_at(path)
        if mark is None or mark.purpose != self.purpose:
            if self._issued(text) is not None:
                raise RehydrationRefused(RejectReason.WRONG_PATH, path, "an issued token at a path not marked for it")
            return text
        token = parse_token(text)
        if token is None:
            return text
        if token.namespace != self.namespace:
            raise RehydrationRefused(RejectReason.CROSS_NAMESPACE, path, "token from another lease's namespace")
        if token.category != mark.category:
            raise RehydrationRefused(
                RejectReason.CROSS_CATEGORY, path, f"token of category {token.category}, path marked {mark.category}"
            )
        entry = self._issued(text)
        if entry is None:
            raise RehydrationRefused(RejectReason.INVENTED_OR_ALTERED, path, "token was never issued by this lease")
        if not entry.disclosed:
            raise RehydrationRefused(
                RejectReason.NOT_DISCLOSED, path, "token did not appear in the disclosed candidate"
            )
        self.per_path[path] += 1
        if self.per_path[path] > mark.max_tokens:
            raise RehydrationRefused(
                RejectReason.OVER_CARDINALITY, path, f"more than {mark.max_tokens} token(s) at this path"
            )
        self.per_category[mark.category] += 1
        return bytes(self.plain[entry.start : entry.end]).decode("utf-8")


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() or key.replace("-", "_").isidentifier() else f"{path}[?]"


class RehydrationReceipt(BaseModel):
    """Evidence of one rehydration: digests, counts and revisions, never a raw value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_id: str = Field(default=RECEIPT_SCHEMA, pattern=f"^{RECEIPT_SCHEMA}$")
    cut_id: Name
    cut_digest: DigestStr
    lease_id: Name
    quarantined_return_digest: DigestStr
    final_digest: DigestStr
    substitutions: dict[str, int] = Field(description="Restored values per category.")
    verifier: Name = Field(description="The cut verifier, name@revision.")
    policy_digest: DigestStr = Field(description="Digest of the cut policy (profile@revision, options, grammar).")
    output_schema_digest: DigestStr
    restored_label_digest: DigestStr
    rehydrated_at: int
    purge_at: int

    @property
    def digest(self) -> str:
        return json_digest(self.model_dump(mode="json"))


class Sink(Enum):
    """Where a value might flow next."""

    LOCAL_VIEW = "local-view"
    LOCAL_VALIDATION = "local-validation"
    EXECUTABLE_FIELD = "executable-field"
    EFFECT = "effect"
    PUBLIC_DELIVERY = "public-delivery"
    REMOTE_CALL = "remote-call"


LOCAL_SINKS = frozenset({Sink.LOCAL_VIEW, Sink.LOCAL_VALIDATION})


@dataclass(frozen=True, slots=True)
class RehydratedResult:
    """A restored candidate: local-only, not executable, labelled as its source, purged by ``purge_at``."""

    _value: JsonValue
    label: PrivatizationLabel
    receipt: RehydrationReceipt
    purge_at: int
    local_only: bool = True
    executable: bool = False

    def value_for(self, sink: Sink) -> Any:
        """A detached copy of the value for a local sink; any other sink is refused."""
        if sink not in LOCAL_SINKS:
            raise RehydratedFlowRefused(
                f"a rehydrated result may not flow to {sink.value}; it stays local (label constraints: "
                f"{', '.join(sorted(self.label.handling_constraints))})"
            )
        return _detach(self._value)

    def __repr__(self) -> str:
        return f"RehydratedResult(receipt={self.receipt.digest}, purge_at={self.purge_at}, local_only=True)"


def _detach(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _detach(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_detach(v) for v in value]
    return value


def restored_label(source: PrivatizationLabel) -> PrivatizationLabel:
    """The source's label with the rehydrated handling constraints added (never lowered)."""
    data = source.model_dump()
    data["handling_constraints"] = source.handling_constraints | REHYDRATED_CONSTRAINTS
    return PrivatizationLabel.model_validate(data)
