"""A small graph, plan and policy for the compaction tests, and a proposal factory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lychd_core.compression import ValidatedCompaction, validate_proposal
from lychd_core.families import CompactionPolicy, CompactionProposal, SourceRange
from lychd_core.graph import ContextGraph, ContextNode, SelectionPlan, select
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement
from tests.support.graphs import budget, node

POLICY = CompactionPolicy("test.elide", 1, "sha256:" + "ab" * 32, preserves_trust=True)
WRITER = RoleProfile("writer", frozenset(ContextClass), frozenset(Provenance), ())
BIG = "word " * 200


def scenario_nodes() -> list[ContextNode]:
    """Two big optional sources a and b, their dependent d, a required query and a spec."""
    return [
        node("a", 400, content=BIG),
        node("b", 400, content=BIG),
        node("d", 10, "a"),
        node("hidden", 400, content=BIG, visible_to=["reviewer"]),
        node("tool", 400, content=BIG, context_class=ContextClass.TOOL_OUTPUT, provenance=Provenance.TOOL),
        node("spec", 10, context_class=ContextClass.SPECIFICATION),
        node(
            "query",
            10,
            provenance=Provenance.USER,
            authority=Authority.USER_INSTRUCTION,
            context_class=ContextClass.QUERY,
            requirement=Requirement.REQUIRED,
        ),
    ]


@dataclass
class Scenario:
    graph: ContextGraph
    plan: SelectionPlan

    def proposal(self, *sources: str, **overrides: Any) -> CompactionProposal:
        fields: dict[str, Any] = {
            "output_id": "compact:1",
            "policy_id": POLICY.id,
            "policy_digest": POLICY.digest,
            "content": "short summary",
            "ranges": tuple(SourceRange(s, 0, len(self.graph[s].content)) for s in sorted(sources)),
            "source_digests": tuple((s, self.graph[s].digest) for s in sorted(sources)),
            "omissions": (),
        }
        fields.update(overrides)
        return CompactionProposal(**fields)

    def validate(self, proposal: CompactionProposal, **kwargs: Any) -> ValidatedCompaction:
        kwargs.setdefault("max_chars", 4000)
        return validate_proposal(proposal, self.graph, self.plan, POLICY, **kwargs)


def scenario(nodes: list[ContextNode] | None = None, usable: int = 10_000) -> Scenario:
    graph = ContextGraph(scenario_nodes() if nodes is None else nodes)
    return Scenario(graph, select(graph, WRITER, budget(usable)))


def private(*parents: str) -> PrivatizationLabel:
    return PrivatizationLabel(
        privacy_class=PrivacyClass.PRIVATE, weight=5000, material_parents=frozenset(parents), lineage_known=True
    )
