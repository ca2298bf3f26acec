"""The orchestrator's span: one per ``assemble`` (the CLI's included), figures only.

See ``lychd_core.telemetry`` for the attribute set; nothing here reads a node's content.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from lychd_core.assembly.context import AssembledContext
from lychd_core.assembly.request import AssemblyRequest
from lychd_core.errors import EgressRefused
from lychd_core.privacy.egress import EgressDecision
from lychd_core.telemetry import AttributeValue, assembly_span, omission_attributes

S = TypeVar("S")
ADAPTER = "orchestrator"


def traced_assembly(
    assemble: Callable[[S, AssemblyRequest], AssembledContext],
) -> Callable[[S, AssemblyRequest], AssembledContext]:
    """Wrap ``assemble_request`` in one span recording the assembled context's figures (or the
    refusal); ``assemble`` builds a request and calls it, so both ways in are traced."""

    @functools.wraps(assemble)
    def traced(self: S, request: AssemblyRequest) -> AssembledContext:
        with assembly_span(ADAPTER, request.session_id) as span:
            try:
                assembled = assemble(self, request)
            except EgressRefused as refused:
                span.set(egress_attributes(refused.decision))
                raise
            if span.recording:
                span.set(context_attributes(assembled))
                span.set({"lychd.egress.decision": "ungated" if request.target is None else "admitted"})
                span.set({"lychd.egress.target": request.target})
            return assembled

    return traced


def egress_attributes(decision: EgressDecision) -> dict[str, AttributeValue | None]:
    return {
        "lychd.egress.target": decision.target,
        "lychd.egress.decision": "admitted" if decision.admitted else "refused",
        "lychd.egress.offenders": len(decision.offenders),
        "lychd.label.class": decision.label.privacy_class.value,
    }


def context_attributes(assembled: AssembledContext) -> dict[str, AttributeValue | None]:
    """Budget, use, counts by reason, digests and the label class of one assembled context."""
    bounds, plan = assembled.bounds, assembled.plan
    omitted: Counter[str] = Counter(str(plan.explanations[node_id].reason) for node_id in plan.omitted)
    report: Any = assembled.compression_report
    receipts = [c.receipt.digest for c in getattr(report, "compactions", ())]
    attributes: dict[str, AttributeValue | None] = {
        "lychd.counter": bounds.token_counter,
        "lychd.chars_per_token": bounds.chars_per_token,
        "lychd.window": bounds.window,
        "lychd.budget.chars": bounds.char_cap,
        "lychd.budget.tokens": bounds.usable_tokens,
        "lychd.used.chars": assembled.used_chars,
        "lychd.used.tokens": plan.accounting.selected,
        "lychd.required.chars": assembled.required_chars,
        "lychd.selected.count": len(plan.selected),
        "lychd.history.start": assembled.history_start,
        "lychd.prefix_digest": assembled.prefix_digest,
        "lychd.plan.graph_digest": plan.graph_digest,
        "lychd.label.class": assembled.label.privacy_class.value,
        "gen_ai.conversation.compacted": bool(receipts),
        "lychd.compaction.receipts": receipts,
    }
    attributes.update(omission_attributes(dict(omitted)))
    return attributes
