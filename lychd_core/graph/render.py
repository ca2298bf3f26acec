"""Render plans: the selected nodes as ordered, typed segments with explicit boundaries.

The message role comes from authority alone, so instruction-like prose inside a
repository file, tool result or memory can never speak as the system or the user.
Every segment is fenced by markers that carry its content digest: quoted material
cannot close its own fence without containing its own SHA-256. Provider encoding is
left to adapters.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from lychd_core.digests import json_digest
from lychd_core.errors import SelectionError
from lychd_core.graph.explain import SelectionPlan
from lychd_core.graph.graph import ContextGraph
from lychd_core.graph.nodes import ContextNode
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Trust, token

RENDER_FORMAT = "lychd.render-plan"


class MessageRole(StrEnum):
    """Who speaks a segment, derived from its authority."""

    SYSTEM = "system"
    DEVELOPER = "developer"
    USER = "user"
    DATA = "data"
    """Quoted material: evidence to read, never instructions to follow."""


MESSAGE_ROLE: Mapping[Authority, MessageRole] = MappingProxyType(
    {
        Authority.SYSTEM_POLICY: MessageRole.SYSTEM,
        Authority.APPLICATION_POLICY: MessageRole.DEVELOPER,
        Authority.ACCEPTANCE_SPECIFICATION: MessageRole.DEVELOPER,
        Authority.USER_INSTRUCTION: MessageRole.USER,
        Authority.NON_AUTHORITATIVE: MessageRole.DATA,
    }
)

CLASS_ORDER: tuple[ContextClass, ...] = (
    ContextClass.POLICY,
    ContextClass.INSTRUCTION,
    ContextClass.SPECIFICATION,
    ContextClass.ENVIRONMENT,
    ContextClass.SOURCE,
    ContextClass.CANDIDATE,
    ContextClass.GATE_EVIDENCE,
    ContextClass.FINDING,
    ContextClass.MEMORY_EVIDENCE,
    ContextClass.TOOL_OUTPUT,
    ContextClass.COMPACTION,
    ContextClass.PRODUCER_ANCESTRY,
    ContextClass.PRODUCER_RATIONALE,
    ContextClass.PRODUCER_REASONING,
    ContextClass.HISTORY,
    ContextClass.CONTINUATION,
    ContextClass.QUERY,
)
"""Render order of classes within one authority: standing material first, the query last."""

_CLASS_RANK = {cls: rank for rank, cls in enumerate(CLASS_ORDER)}
_PROVENANCE_RANK = {prov: rank for rank, prov in enumerate(Provenance)}
"""Provenance descending means declaration order: system first, derived compaction last."""


def render_key(node: ContextNode) -> tuple[int, int, int, str]:
    """Render order: authority descending, class, provenance descending, id ascending."""
    return (-node.authority, _CLASS_RANK[node.context_class], _PROVENANCE_RANK[node.provenance], node.id)


@dataclass(frozen=True, slots=True)
class RenderSegment:
    """One selected node, typed for an adapter."""

    source_id: str
    message_role: MessageRole
    provenance: Provenance
    authority: Authority
    trust: Trust
    context_class: ContextClass
    digest: str
    content: str

    def header(self) -> str:
        fields = {
            "id": self.source_id,
            "role": self.message_role.value,
            "provenance": self.provenance.value,
            "authority": token(self.authority),
            "trust": token(self.trust),
            "class": self.context_class.value,
            "digest": self.digest,
        }
        return "<<<lychd:begin " + json.dumps(fields, sort_keys=True, ensure_ascii=True) + ">>>"

    def footer(self) -> str:
        return f"<<<lychd:end {self.digest}>>>"

    def text(self) -> str:
        """The segment between its begin and end markers."""
        return f"{self.header()}\n{self.content}\n{self.footer()}"

    def to_json(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "message_role": self.message_role.value,
            "provenance": self.provenance.value,
            "authority": token(self.authority),
            "trust": token(self.trust),
            "context_class": self.context_class.value,
            "digest": self.digest,
            "content": self.content,
        }


@dataclass(frozen=True, slots=True)
class RenderPlan:
    """Ordered segments of one selection plan."""

    segments: tuple[RenderSegment, ...]
    plan_digest: str

    def text(self) -> str:
        """Every segment, fenced, separated by blank lines."""
        return "\n\n".join(segment.text() for segment in self.segments)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RENDER_FORMAT,
            "version": 1,
            "plan": self.plan_digest,
            "segments": [segment.to_json() for segment in self.segments],
        }

    @property
    def digest(self) -> str:
        return json_digest(self.to_json())


def render(graph: ContextGraph, plan: SelectionPlan) -> RenderPlan:
    """Segments for the nodes ``plan`` selected from ``graph``, in render order."""
    if not isinstance(plan, SelectionPlan):
        raise SelectionError(f"render needs a SelectionPlan, got {type(plan).__name__}")
    if plan.graph is not graph and plan.graph_digest != graph.digest:
        raise SelectionError(
            f"this plan was selected from graph {plan.graph_digest}, not from {graph.digest}; select again"
        )
    nodes = sorted((graph.node(node_id) for node_id in plan.selected), key=render_key)
    segments = tuple(
        RenderSegment(
            source_id=node.id,
            message_role=MESSAGE_ROLE[node.authority],
            provenance=node.provenance,
            authority=node.authority,
            trust=node.trust,
            context_class=node.context_class,
            digest=node.digest,
            content=node.content,
        )
        for node in nodes
    )
    return RenderPlan(segments=segments, plan_digest=plan.digest)
