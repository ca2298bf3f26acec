"""Running pinned compressors over a graph: request, propose, validate, replace, select again.

Each compressor sees the graph as the previous one left it. A compressor that raises
or returns something other than proposals is a ``CompressorFailedError``; an invalid
proposal raises its own ``CompactionError``. Either way the caller's graph is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from lychd_core.compression.layouts import ProposalLayouts
from lychd_core.compression.messages import parse_messages
from lychd_core.compression.protection import protection
from lychd_core.compression.replacement import replace
from lychd_core.compression.validation import ValidatedCompaction, in_play, validate_proposals
from lychd_core.digests import json_digest
from lychd_core.errors import CompressorFailedError, HistoryError, LychdError, MalformedProposalError
from lychd_core.families import CompactionPolicy, CompactionRequest, CompactionSource, Compressor
from lychd_core.graph import ContextGraph, ContextNode, SelectionPlan, select, visible
from lychd_core.history import Message
from lychd_core.labels import PrivatizationLabel
from lychd_core.vocabulary import ContextClass

HistoryMessages = dict[str, tuple[tuple[Message, ...], tuple[str, ...]]]
"""History node id -> its checked messages and each one's compact JSON."""


@dataclass(frozen=True, slots=True)
class PinnedCompressor:
    """A resolved compressor, its validated options and the policy they make."""

    compressor: Compressor
    options: BaseModel
    policy: CompactionPolicy


def pinned(compressor: Compressor, options: BaseModel | None = None) -> PinnedCompressor:
    """Pin ``compressor`` with ``options`` (its defaults when ``None``)."""
    options = compressor.options_model() if options is None else options
    digest = json_digest(
        {"name": compressor.name, "revision": compressor.revision, "options": options.model_dump(mode="json")}
    )
    policy = CompactionPolicy(compressor.name, compressor.revision, digest, bool(compressor.preserves_trust))
    return PinnedCompressor(compressor, options, policy)


@dataclass(frozen=True, slots=True)
class CompressionOutcome:
    """The graph after compression, the plan over it, and every validated compaction."""

    graph: ContextGraph
    plan: SelectionPlan
    compactions: tuple[ValidatedCompaction, ...]
    history: HistoryMessages | None = None
    """The history messages given, plus every derived history node's (checked)."""

    def to_json(self) -> list[dict[str, Any]]:
        return [c.receipt.to_json() for c in self.compactions]


def compression_request(
    graph: ContextGraph,
    plan: SelectionPlan,
    policy: CompactionPolicy,
    *,
    max_chars: int,
    chars_per_token: int,
    stable_floor: frozenset[str] = frozenset(),
    candidate: Callable[[ContextNode], bool] | None = None,
    older_unseen: int = 0,
    history: HistoryMessages | None = None,
) -> CompactionRequest:
    """Every node a compressor may use: visible, unprotected, selected or left out for room.

    Nodes an earlier compressor derived are offered too, so a later one sees a contiguous
    run (a digest of dropped history may take an elided group with the rest)."""
    sources = []
    state = in_play(plan)
    same = plan.graph is graph
    for position, node in enumerate(graph.nodes):
        at = position if same else plan.graph.index_of(node.id)
        if at is None:
            continue  # not in the plan: not a candidate
        selected, for_room = state(at)
        if not (selected or for_room):
            continue
        if not visible(plan.profile, node):
            continue
        if protection(node, stable_floor) is not None or (candidate is not None and not candidate(node)):
            continue
        parsed = None if history is None else history.get(node.id)
        sources.append(
            CompactionSource(
                node_id=node.id,
                content=node.content,
                digest=node.digest,
                context_class=node.context_class,
                provenance=node.provenance,
                token_estimate=node.token_estimate,
                recency=node.recency,
                omitted=not selected,
                messages=None if parsed is None else parsed[0],
                message_texts=None if parsed is None else parsed[1],
            )
        )
    return CompactionRequest(tuple(sources), policy, max_chars, chars_per_token, older_unseen)


def compress_graph(
    graph: ContextGraph,
    plan: SelectionPlan,
    compressors: Sequence[PinnedCompressor],
    *,
    max_chars: int,
    chars_per_token: int = 3,
    labels: Mapping[str, PrivatizationLabel] | None = None,
    stable_floor: frozenset[str] = frozenset(),
    candidate: Callable[[ContextNode], bool] | None = None,
    older_unseen: int = 0,
    history: HistoryMessages | None = None,
    count: Callable[[str], int] | None = None,
) -> CompressionOutcome:
    """Run ``compressors`` in order; each one's proposals are validated and replaced at once.
    Derived nodes are priced by ``count`` (the configured token counter) when given.

    With ``history`` (history node id -> messages), history sources reach compressors
    parsed, and every derived history node must be complete messages: they are checked
    and added to ``history``, so later compressors and the caller read them parsed."""
    return _compress(
        graph,
        plan,
        compressors,
        max_chars,
        chars_per_token,
        labels,
        stable_floor,
        candidate,
        older_unseen,
        history,
        count,
    )


def _compress(
    graph: ContextGraph,
    plan: SelectionPlan,
    compressors: Sequence[PinnedCompressor],
    max_chars: int,
    chars_per_token: int,
    labels: Mapping[str, PrivatizationLabel] | None,
    stable_floor: frozenset[str],
    candidate: Callable[[ContextNode], bool] | None,
    older_unseen: int,
    history: HistoryMessages | None,
    count: Callable[[str], int] | None = None,
) -> CompressionOutcome:
    done: list[ValidatedCompaction] = []
    labels = dict(labels or {})
    history = None if history is None else dict(history)
    for pin in compressors:
        request = compression_request(
            graph,
            plan,
            pin.policy,
            max_chars=max_chars,
            chars_per_token=chars_per_token,
            stable_floor=stable_floor,
            candidate=candidate,
            older_unseen=older_unseen,
            history=history,
        )
        if not request.sources:
            continue
        proposals = call_compressor(pin, request)
        if not proposals:
            continue
        validated = validate_proposals(
            proposals,
            graph,
            plan,
            pin.policy,
            max_chars=max_chars,
            chars_per_token=chars_per_token,
            labels=labels,
            stable_floor=stable_floor,
            count=count,
        )
        if history is not None:  # checked before replacement, so a bad one changes nothing
            for c in validated:
                if c.source_class is ContextClass.HISTORY:
                    history[c.node.id] = derived_messages(c, history)
        graph = replace(graph, validated)
        plan = select(graph, plan.profile, plan.budget, plan.bounds)
        labels.update((c.node.id, c.label) for c in validated)  # a later compaction of it joins these
        done += validated
    return CompressionOutcome(graph, plan, tuple(done), history)


def call_compressor(pin: PinnedCompressor, request: CompactionRequest) -> tuple[Any, ...]:
    """The compressor's proposals; anything it raises or returns malformed is typed."""
    try:
        proposals = pin.compressor.propose(request, pin.options)
    except LychdError:
        raise
    except (Exception, SystemExit) as exc:  # plugin code never ends the process; Ctrl-C (the user's) does
        raise CompressorFailedError(
            f"compressor {pin.policy.id} raised {type(exc).__name__}: {exc}", policy_id=pin.policy.id
        ) from exc
    if not isinstance(proposals, tuple):
        raise CompressorFailedError(
            f"compressor {pin.policy.id} must return a tuple of CompactionProposal, got {type(proposals).__name__}",
            policy_id=pin.policy.id,
        )
    return proposals


def derived_messages(
    compaction: ValidatedCompaction, history: HistoryMessages
) -> tuple[tuple[Message, ...], tuple[str, ...]]:
    """A derived history node's messages and their texts; a typed refusal if it is not
    complete messages. Messages it keeps verbatim from its sources are not parsed again."""
    known = [
        (message, text)
        for source in compaction.replaced
        if source in history
        for message, text in zip(*history[source], strict=True)
    ]
    sources = [message for message, _ in known]
    layout = _LAYOUTS.get(compaction.proposal)
    if layout is not None and layout[2] == len(known):  # validated against sources of the same digests
        return ProposalLayouts.messages(layout, sources), layout[1]
    try:
        messages, texts = parse_messages(compaction.node.content, compaction.node.id, known)
    except HistoryError as exc:
        raise MalformedProposalError(
            f"{compaction.node.id!r} replaces history but is not complete messages: {exc}",
            output_id=compaction.node.id,
        ) from None
    _LAYOUTS.put(compaction.proposal, messages, texts, sources)
    return messages, texts


_LAYOUTS = ProposalLayouts()
