"""Execution Projection input: caller-owned execution state replaces settled history for one call.

At an explicitly declared placement, the caller (the composition that owns the state)
hands over a bounded, attributed projection of its execution state plus fresh
observations. Each item keeps its lineage, classification (label), revision, declared
omissions and required/optional status. The Stable Floor, the query and the
continuation stay; settled history is left out of this one call and never deleted.
Required items that do not fit refuse before inference; optional items that do not fit
are omitted with a reason. Assembly never infers a schema or summarizes what is missing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lychd_core.assembly.nodes import NodeKind, Tokens, make_node
from lychd_core.blocks import Omission
from lychd_core.digests import json_digest
from lychd_core.errors import ExecutionProjectionError
from lychd_core.graph import ContextNode
from lychd_core.history import compact_json
from lychd_core.labels import PrivatizationLabel
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Trust

PRIORITY_EXECUTION = 15
STATE = NodeKind(Provenance.APPLICATION, Authority.NON_AUTHORITATIVE, Trust.TRUSTED, ContextClass.SOURCE)
OBSERVATION = NodeKind(Provenance.TOOL, Authority.NON_AUTHORITATIVE, Trust.CONSTRAINED, ContextClass.TOOL_OUTPUT)


class ExecutionItem(BaseModel):
    """One attributed piece of execution state or one fresh observation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(min_length=1, description="Unique key within the projection.")
    kind: Literal["state", "observation"]
    text: str = Field(min_length=1)
    required: bool = False
    revision: int = Field(ge=1, strict=True, description="The owner's revision of this item.")
    lineage: tuple[str, ...] = Field(default=(), description="Digests of what the item was derived from.")
    omissions: tuple[Omission, ...] = ()
    label: PrivatizationLabel = Field(default_factory=PrivatizationLabel.restricted_unknown)

    @property
    def node_id(self) -> str:
        return f"execution:{self.kind}:{self.key}"


class ExecutionProjection(BaseModel):
    """The caller-owned projection for one declared placement, bounded by ``max_chars``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    placement: str = Field(min_length=1, description="The declared placement, e.g. 'pattern:review@3/step:plan'.")
    owner: str = Field(min_length=1, description="Who owns the state (the composition).")
    items: tuple[ExecutionItem, ...]
    max_chars: int = Field(gt=0, strict=True, description="The owner's bound on the items' text.")

    @model_validator(mode="after")
    def _bounded_and_unique(self) -> ExecutionProjection:
        keys = [item.node_id for item in self.items]
        if len(set(keys)) != len(keys):
            raise ValueError(
                f"item keys must be unique per kind; repeated: {sorted({k for k in keys if keys.count(k) > 1})}"
            )
        total = sum(len(item.text) for item in self.items)
        if total > self.max_chars:
            raise ValueError(f"items hold {total} characters, over the projection's own bound of {self.max_chars}")
        return self

    @classmethod
    def parse(cls, data: Any) -> ExecutionProjection:
        """Validate ``data`` or raise ``ExecutionProjectionError`` naming each problem."""
        if isinstance(data, cls):
            return data
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'projection'}: {e['msg']}" for e in exc.errors())
            raise ExecutionProjectionError(f"invalid execution projection: {problems}") from None

    @property
    def digest(self) -> str:
        return json_digest(self.model_dump(mode="json"))


def execution_nodes(projection: ExecutionProjection, chars_per_token: Tokens) -> list[ContextNode]:
    return [
        make_node(
            item.node_id,
            item.text,
            STATE if item.kind == "state" else OBSERVATION,
            chars_per_token,
            required=item.required,
            priority=PRIORITY_EXECUTION,
            recency=index,
        )
        for index, item in enumerate(projection.items)
    ]


def required_chars(projection: ExecutionProjection) -> int:
    return sum(len(item.text) for item in projection.items if item.required)


def render_execution(projection: ExecutionProjection, selected: Iterable[str]) -> tuple[str, ...]:
    """The kept items as one attributed request message (compact JSON), or nothing."""
    chosen = set(selected)
    kept = [item for item in projection.items if item.node_id in chosen]
    if not kept:
        return ()
    header = f"[lychd: execution projection for {projection.placement}, owned by {projection.owner}]"
    blocks = [header]
    for item in kept:
        facts = {"key": item.key, "kind": item.kind, "revision": item.revision, "lineage": list(item.lineage)}
        omitted = "".join(f"\n[omitted by its owner: {o.kind}: {o.reason}]" for o in item.omissions)
        blocks.append(f"<<<lychd:execution {compact_json(facts)}>>>\n{item.text}{omitted}\n<<<lychd:end {item.key}>>>")
    return (compact_json({"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "\n".join(blocks)}]}),)


def execution_report(projection: ExecutionProjection, selected: Iterable[str]) -> dict[str, Any]:
    chosen = set(selected)
    return {
        "placement": projection.placement,
        "owner": projection.owner,
        "digest": projection.digest,
        "items": [
            {
                "key": item.key,
                "kind": item.kind,
                "revision": item.revision,
                "required": item.required,
                "kept": item.node_id in chosen,
                "lineage": list(item.lineage),
                "omissions": [o.model_dump(mode="json") for o in item.omissions],
            }
            for item in projection.items
        ],
    }


def kept_labels(projection: ExecutionProjection, selected: Iterable[str]) -> dict[str, PrivatizationLabel]:
    """Each kept item's own label (its classification), by node id."""
    chosen = set(selected)
    return {item.node_id: item.label for item in projection.items if item.node_id in chosen}
