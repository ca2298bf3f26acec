"""Material that is never a compaction source, and why."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from lychd_core.graph import ContextNode
from lychd_core.vocabulary import Authority, ContextClass, Requirement, token

PROTECTED_CLASSES: Mapping[ContextClass, str] = MappingProxyType(
    {
        ContextClass.POLICY: "immutable policy",
        ContextClass.SPECIFICATION: "an acceptance specification",
        ContextClass.INSTRUCTION: "an active user instruction",
        ContextClass.ENVIRONMENT: "capability facts",
        ContextClass.FINDING: "a finding (blocking findings are never summarized)",
        ContextClass.QUERY: "the query",
        ContextClass.CONTINUATION: "a continuation",
    }
)
"""Classes never compacted. Findings are protected whole: the graph cannot tell an
unresolved blocking finding from a settled one, so none is summarized."""


def protection(node: ContextNode, stable_floor: frozenset[str] = frozenset()) -> str | None:
    """Why ``node`` may never be a compaction source, or ``None`` if it may be."""
    if node.id in stable_floor:
        return "the Stable Floor"
    if node.requirement is Requirement.REQUIRED:
        return "required material"
    if node.authority is not Authority.NON_AUTHORITATIVE:
        return f"authoritative material ({token(node.authority)})"
    return PROTECTED_CLASSES.get(node.context_class)
