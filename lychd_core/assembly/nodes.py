"""Turning assembly inputs into context-graph nodes.

Every input becomes a node of one graph so the one selector decides: floor blocks,
the query and the continuation are required; optional material, memory evidence and
settled history groups are optional. Each older history group depends on the next
newer one, so dependency-closure admission keeps a contiguous newest suffix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from lychd_core.blocks import Block, Layer
from lychd_core.graph import ContextNode
from lychd_core.history import MessageGroup
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement, Trust

# Optional material outranks older history: floor layers come before state.
PRIORITY_CODEX = 30
PRIORITY_MEMORY = 20
PRIORITY_HISTORY = 10

PartKind = Literal["floor", "query", "continuation", "history", "memory"]


@dataclass(frozen=True, slots=True)
class FloorKind:
    provenance: Provenance
    authority: Authority
    trust: Trust
    context_class: ContextClass


FLOOR_KINDS: dict[Layer, FloorKind] = {
    Layer.IDENTITY: FloorKind(Provenance.SYSTEM, Authority.SYSTEM_POLICY, Trust.TRUSTED, ContextClass.POLICY),
    Layer.CODEX: FloorKind(Provenance.REPOSITORY, Authority.NON_AUTHORITATIVE, Trust.TRUSTED, ContextClass.SOURCE),
    Layer.ENVIRONMENT: FloorKind(
        Provenance.APPLICATION, Authority.NON_AUTHORITATIVE, Trust.TRUSTED, ContextClass.ENVIRONMENT
    ),
    Layer.KARMA: FloorKind(
        Provenance.APPLICATION, Authority.NON_AUTHORITATIVE, Trust.TRUSTED, ContextClass.MEMORY_EVIDENCE
    ),
}


def estimate_tokens(chars: int, chars_per_token: int) -> int:
    """Conservative: ceil(chars / chars_per_token), at least one."""
    return max(1, -(-chars // chars_per_token))


def floor_node_id(block: Block) -> str:
    return f"L{int(block.layer)}:{block.key}"


def floor_node(block: Block, *, required: bool, chars_per_token: int) -> ContextNode:
    kind = FLOOR_KINDS[block.layer]
    return ContextNode.create(
        id=floor_node_id(block),
        content=block.text,
        provenance=kind.provenance,
        authority=kind.authority,
        trust=kind.trust,
        context_class=kind.context_class,
        requirement=Requirement.REQUIRED if required else Requirement.OPTIONAL,
        priority=PRIORITY_CODEX,
        token_estimate=estimate_tokens(len(block.text), chars_per_token),
        recency=0,
        visible_to=None,
        dependencies=(),
    )


def memory_node(node_id: str, text: str, token_estimate: int, chars_per_token: int) -> ContextNode:
    """Memory is quoted, non-authoritative, untrusted evidence: never policy, never a capability."""
    return ContextNode.create(
        id=node_id,
        content=text,
        provenance=Provenance.MEMORY,
        authority=Authority.NON_AUTHORITATIVE,
        trust=Trust.UNTRUSTED,
        context_class=ContextClass.MEMORY_EVIDENCE,
        requirement=Requirement.OPTIONAL,
        priority=PRIORITY_MEMORY,
        token_estimate=max(token_estimate, estimate_tokens(len(text), chars_per_token)),
        recency=0,
        visible_to=None,
        dependencies=(),
    )


def query_node(query: str, chars_per_token: int) -> ContextNode:
    return ContextNode.create(
        id="query",
        content=query,
        provenance=Provenance.USER,
        authority=Authority.USER_INSTRUCTION,
        trust=Trust.TRUSTED,
        context_class=ContextClass.QUERY,
        requirement=Requirement.REQUIRED,
        priority=0,
        token_estimate=estimate_tokens(len(query), chars_per_token),
        recency=0,
        visible_to=None,
        dependencies=(),
    )


def continuation_node(text: str, chars_per_token: int) -> ContextNode:
    return ContextNode.create(
        id="continuation",
        content=text,
        provenance=Provenance.TOOL,
        authority=Authority.NON_AUTHORITATIVE,
        trust=Trust.TRUSTED,
        context_class=ContextClass.CONTINUATION,
        requirement=Requirement.REQUIRED,
        priority=0,
        token_estimate=estimate_tokens(len(text), chars_per_token),
        recency=0,
        visible_to=None,
        dependencies=(),
    )


def history_node_id(group: MessageGroup) -> str:
    return f"history:{group.start:09d}-{group.end:09d}"


def history_node(
    group: MessageGroup, text: str, newer: MessageGroup | None, recency: int, chars_per_token: int
) -> ContextNode:
    return ContextNode.create(
        id=history_node_id(group),
        content=text,
        provenance=Provenance.AGENT,
        authority=Authority.NON_AUTHORITATIVE,
        trust=Trust.TRUSTED,
        context_class=ContextClass.HISTORY,
        requirement=Requirement.OPTIONAL,
        priority=PRIORITY_HISTORY,
        token_estimate=estimate_tokens(len(text), chars_per_token),
        recency=recency,
        visible_to=None,
        dependencies=() if newer is None else (history_node_id(newer),),
    )
