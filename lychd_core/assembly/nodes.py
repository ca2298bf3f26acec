"""Turning assembly inputs into context-graph nodes.

Every input becomes a node of one graph so the one selector decides: floor blocks,
the query and the continuation are required; optional material, memory evidence and
settled history groups are optional. Each older history group depends on the next
newer one, so dependency-closure admission keeps a contiguous newest suffix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from lychd_core.blocks import Block, Layer
from lychd_core.graph import ContextNode
from lychd_core.history import Message, MessageGroup, iter_groups_newest_first
from lychd_core.labels import PrivatizationLabel
from lychd_core.memory import MemoryEvidence
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement, Trust

# Optional material outranks older history: floor layers come before state.
PRIORITY_CODEX = 30
PRIORITY_MEMORY = 20
PRIORITY_HISTORY = 10


@dataclass(frozen=True, slots=True)
class NodeKind:
    """The checked metadata a kind of input carries; prose in content never changes it."""

    provenance: Provenance
    authority: Authority
    trust: Trust
    context_class: ContextClass


FLOOR_KINDS: dict[Layer, NodeKind] = {
    Layer.IDENTITY: NodeKind(Provenance.SYSTEM, Authority.SYSTEM_POLICY, Trust.TRUSTED, ContextClass.POLICY),
    Layer.CODEX: NodeKind(Provenance.REPOSITORY, Authority.NON_AUTHORITATIVE, Trust.TRUSTED, ContextClass.SOURCE),
    Layer.ENVIRONMENT: NodeKind(
        Provenance.APPLICATION, Authority.NON_AUTHORITATIVE, Trust.TRUSTED, ContextClass.ENVIRONMENT
    ),
    Layer.KARMA: NodeKind(
        Provenance.APPLICATION, Authority.NON_AUTHORITATIVE, Trust.TRUSTED, ContextClass.MEMORY_EVIDENCE
    ),
}


def is_codex_node(node: ContextNode) -> bool:
    """A node made from a layer-2 (Codex) block: its checked kind says so, not its id."""
    kind = FLOOR_KINDS[Layer.CODEX]
    return node.provenance is kind.provenance and node.context_class is kind.context_class


# Memory is quoted, non-authoritative, untrusted evidence: never policy, never a capability.
MEMORY = NodeKind(Provenance.MEMORY, Authority.NON_AUTHORITATIVE, Trust.UNTRUSTED, ContextClass.MEMORY_EVIDENCE)
QUERY = NodeKind(Provenance.USER, Authority.USER_INSTRUCTION, Trust.TRUSTED, ContextClass.QUERY)
CONTINUATION = NodeKind(Provenance.TOOL, Authority.NON_AUTHORITATIVE, Trust.CONSTRAINED, ContextClass.CONTINUATION)
HISTORY = NodeKind(Provenance.AGENT, Authority.NON_AUTHORITATIVE, Trust.CONSTRAINED, ContextClass.HISTORY)


Tokens = int | Callable[[str], int]
"""How a node's tokens are counted: characters per token (the reference estimate), or a
counter (``lychd_core.tokens.BoundCounter``, the configured ``[tokens] counter``)."""


def estimate_tokens(chars: int, chars_per_token: int) -> int:
    """Conservative: ceil(chars / chars_per_token), at least one."""
    return max(1, -(-chars // chars_per_token))


def count_tokens(content: str, tokens: Tokens) -> int:
    """The node's token estimate: the counter's count (or the reference estimate), at least one."""
    if isinstance(tokens, int):
        return estimate_tokens(len(content), tokens)
    return max(1, tokens(content))


def room_chars(usable_tokens: int, floor: Sequence[Block], tokens: Tokens) -> int:
    """Characters that ``usable_tokens`` hold, for planning views before nodes exist: at the
    reference's characters per token, or at the counter's own ratio over the floor's texts
    (counted now, so the nodes made next find their counts cached)."""
    if isinstance(tokens, int):
        return usable_tokens * tokens
    chars = sum(len(block.text) for block in floor)
    counted = sum(tokens(block.text) for block in floor)
    return usable_tokens * chars // counted if counted else usable_tokens


def make_node(
    node_id: str,
    content: str,
    kind: NodeKind,
    chars_per_token: Tokens,
    *,
    required: bool,
    priority: int = 0,
    recency: int = 0,
    token_estimate: int = 0,
    dependencies: tuple[str, ...] = (),
    relevance: int = 0,
    group: str | None = None,
) -> ContextNode:
    """A node of ``kind``. Its fields are members and a sorted tuple already, so it is built by
    the dataclass constructor, which checks every field once (``ContextNode.create`` would
    only add the spelling conversion that callers writing strings or sets need)."""
    return ContextNode(
        id=node_id,
        content=content,
        provenance=kind.provenance,
        authority=kind.authority,
        trust=kind.trust,
        context_class=kind.context_class,
        requirement=Requirement.REQUIRED if required else Requirement.OPTIONAL,
        priority=priority,
        token_estimate=max(token_estimate, count_tokens(content, chars_per_token)),
        recency=recency,
        visible_to=None,
        dependencies=dependencies,
        relevance=relevance,
        exclusive_group=group,
    )


def floor_node_id(block: Block) -> str:
    return f"L{int(block.layer)}:{block.key}"


def floor_node(
    block: Block, *, required: bool, chars_per_token: Tokens, relevance: int = 0, group: str | None = None
) -> ContextNode:
    kind = FLOOR_KINDS[block.layer]
    return make_node(
        floor_node_id(block),
        block.text,
        kind,
        chars_per_token,
        required=required,
        priority=PRIORITY_CODEX,
        relevance=relevance,
        group=group,
    )


def memory_node(node_id: str, text: str, token_estimate: int, chars_per_token: Tokens) -> ContextNode:
    return make_node(
        node_id,
        text,
        MEMORY,
        chars_per_token,
        required=False,
        priority=PRIORITY_MEMORY,
        # the evidence's own estimate is characters-based: a configured counter replaces it
        token_estimate=token_estimate if isinstance(chars_per_token, int) else 0,
    )


def query_node(query: str, chars_per_token: Tokens) -> ContextNode:
    return make_node("query", query, QUERY, chars_per_token, required=True)


def continuation_node(text: str, chars_per_token: Tokens) -> ContextNode:
    return make_node("continuation", text, CONTINUATION, chars_per_token, required=True)


def history_node_id(group: MessageGroup) -> str:
    """Zero-padded so ids sort in time order (ids break render-order ties)."""
    return f"history:{group.start:09d}-{group.end:09d}"


def history_node(
    group: MessageGroup, node_id: str, newer_id: str | None, recency: int, chars_per_token: Tokens
) -> ContextNode:
    """The node of ``group`` (its id made once by the caller), depending on the next newer group's node."""
    return make_node(
        node_id,
        "".join(group.texts),
        HISTORY,
        chars_per_token,
        required=False,
        priority=PRIORITY_HISTORY,
        recency=recency,
        dependencies=() if newer_id is None else (newer_id,),
    )


def labels_of_nodes(
    floor: Sequence[Block],
    memory: Sequence[MemoryEvidence],
    history_ids: Sequence[str],
    continuation: bool,
    history_label: PrivatizationLabel | None,
    continuation_label: PrivatizationLabel | None,
    query_label: PrivatizationLabel | None,
) -> dict[str, PrivatizationLabel]:
    """The label of every node (``history_ids``: the history nodes'); unlabelled inputs are
    restricted with unknown lineage."""
    unlabelled = PrivatizationLabel.restricted_unknown()
    labels = {floor_node_id(block): block.label for block in floor}
    labels.update((evidence.node_id, evidence.label) for evidence in memory)
    history = history_label or unlabelled
    labels.update(dict.fromkeys(history_ids, history))
    if continuation:
        labels["continuation"] = continuation_label or unlabelled
    labels["query"] = query_label or unlabelled
    return labels


def history_nodes_within(
    history: Sequence[Message], turn_window: int, char_budget: int, cpt: Tokens
) -> tuple[list[ContextNode], list[MessageGroup], int]:
    """Nodes for the newest groups the governors could keep, plus the first that cannot.

    Scanning stops there, so the cost depends on what is kept, not on history length.
    Returns the nodes, their groups, and how many older messages never became nodes.
    """
    return history_nodes_of(iter_groups_newest_first(history), len(history), turn_window, char_budget, cpt)


HistoryNodeCache = dict[tuple[str, str | None, int], tuple[tuple[str, ...], ContextNode]]
"""History nodes already built, by (node id, the id it depends on, chars per token): reused while the
group's texts are the same string objects (an adapter's wire memo hands out the same ones)."""

HISTORY_NODE_CACHE_LIMIT = 1024


def history_nodes_of(
    groups_newest_first: Iterator[MessageGroup],
    total: int,
    turn_window: int,
    char_budget: int,
    cpt: Tokens,
    cache: HistoryNodeCache | None = None,
) -> tuple[list[ContextNode], list[MessageGroup], int]:
    """``history_nodes_within`` over groups already being read (newest first) from a
    history of ``total`` messages: the one history policy of assembly and every adapter.

    A group's recency is its end: newer groups rank higher, and a settled group's node
    is the same request after request (so ``cache`` can hold it)."""
    nodes: list[ContextNode] = []
    groups: list[MessageGroup] = []
    if turn_window <= 0:
        return nodes, groups, total
    used = 0
    newer_id = None
    for group in groups_newest_first:
        node = _history_node_cached(group, newer_id, cpt, cache)
        nodes.append(node)
        groups.append(group)
        newer_id = node.id
        used += group.chars
        if len(groups) > turn_window or used > char_budget:
            break
    older = groups[-1].start if groups else total
    return nodes, groups, older


def _history_node_cached(
    group: MessageGroup, newer_id: str | None, cpt: Tokens, cache: HistoryNodeCache | None
) -> ContextNode:
    node_id = history_node_id(group)
    if cache is None or not isinstance(cpt, int):  # a counter object may change its counts: build anew
        return history_node(group, node_id, newer_id, group.end, cpt)
    key = (node_id, newer_id, cpt)
    held = cache.get(key)
    if held is not None and len(held[0]) == len(group.texts) and all(map(_same, held[0], group.texts)):
        return held[1]
    node = history_node(group, node_id, newer_id, group.end, cpt)
    if len(cache) >= HISTORY_NODE_CACHE_LIMIT:
        cache.clear()
    cache[key] = (group.texts, node)
    return node


def _same(a: str, b: str) -> bool:
    return a is b
