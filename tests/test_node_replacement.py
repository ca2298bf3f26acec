"""The derived node in its source's place (``derived_node``) and the graph digest's fast encoder."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lychd_core.compression.derived import derived_node
from lychd_core.digests import built_json_digest, json_digest
from lychd_core.errors import GraphError
from lychd_core.families import CompactionPolicy, CompactionProposal, SourceRange
from lychd_core.graph import ContextGraph, ContextNode
from lychd_core.graph.graph import node_summary
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement, Trust

IDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zs")), min_size=1, max_size=20)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=300)


def source(**overrides: Any) -> ContextNode:
    fields: dict[str, Any] = {
        "id": "history:000000004-000000008",
        "content": "x" * 900,
        "provenance": Provenance.AGENT,
        "authority": Authority.NON_AUTHORITATIVE,
        "trust": Trust.CONSTRAINED,
        "context_class": ContextClass.HISTORY,
        "requirement": Requirement.OPTIONAL,
        "token_estimate": 300,
        "priority": 10,
        "recency": 7,
        "dependencies": ("history:000000008-000000012",),
    }
    return ContextNode.create(**(fields | overrides))


POLICY = CompactionPolicy("compress.test", 1, "sha256:" + "1" * 64, preserves_trust=True)


def proposal_for(node: ContextNode, *, id: str | None = None, content: str = "short") -> CompactionProposal:
    return CompactionProposal(
        output_id="elided:" + node.id if id is None else id,
        policy_id=POLICY.id,
        policy_digest=POLICY.digest,
        content=content,
        ranges=(SourceRange(node.id, 0, len(node.content)),),
        source_digests=((node.id, node.digest),),
    )


@settings(max_examples=150, deadline=None)
@given(
    new_id=IDS,
    content=TEXT,
    trust=st.sampled_from(Trust),
    preserves=st.booleans(),
    requirement=st.sampled_from([Requirement.OPTIONAL, Requirement.DEPENDENCY_REQUIRED]),
    priority=st.integers(-(2**40), 2**40),
    recency=st.integers(0, 2**40),
    roles=st.none() | st.frozensets(st.sampled_from(["writer", "reviewer"]), min_size=1),
    relevance=st.integers(0, 1000),
)
def test_a_derived_node_is_the_node_create_would_make_in_its_source_place(
    new_id: str,
    content: str,
    trust: Trust,
    preserves: bool,
    requirement: Requirement,
    priority: int,
    recency: int,
    roles: frozenset[str] | None,
    relevance: int,
) -> None:
    """Same fields, digest and size as the checked constructor; relevance and group are not inherited."""
    old = source(
        provenance=Provenance.REPOSITORY if trust is Trust.TRUSTED else Provenance.AGENT,  # agent: at most constrained
        trust=trust,
        requirement=requirement,
        priority=priority,
        recency=recency,
        visible_to=roles,
        relevance=relevance,
    )
    assume(new_id not in old.dependencies and new_id == new_id.strip())
    policy = CompactionPolicy(POLICY.name, POLICY.revision, POLICY.digest, preserves_trust=preserves)
    made, _ = derived_node(proposal_for(old, id=new_id, content=content), (old,), policy, 3, {})
    expected = ContextNode.create(
        id=new_id,
        content=content,
        provenance=Provenance.DERIVED_COMPACTION,
        authority=Authority.NON_AUTHORITATIVE,
        trust=Trust.TRUSTED if preserves and trust is Trust.TRUSTED else Trust.UNTRUSTED,
        context_class=old.context_class,
        requirement=requirement,
        token_estimate=max(1, -(-len(content) // 3)),
        priority=priority,
        recency=recency,
        visible_to=roles,
        dependencies=old.dependencies,
    )
    assert made == expected
    assert (made.digest, made.byte_size) == (expected.digest, expected.byte_size)


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"id": ""}, "non-empty"),
        ({"id": "a\nb"}, "control characters"),
        ({"id": " padded"}, "surrounding whitespace"),
        ({"content": ""}, "non-empty string"),
        ({"content": "x\ud800"}, "lone surrogate"),
    ],
)
def test_a_derived_node_checks_what_the_proposal_gives(overrides: dict[str, Any], problem: str) -> None:
    old = source()
    with pytest.raises(GraphError, match=problem):
        derived_node(proposal_for(old, **overrides), (old,), POLICY, 3, {})
    assert old.content == "x" * 900  # the source is untouched


SUMMARY_ITEM = (
    st.none() | st.integers(-(2**63), 2**63 - 1) | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)))
)
SUMMARIES = st.lists(st.lists(SUMMARY_ITEM | st.lists(SUMMARY_ITEM, max_size=3), max_size=8), max_size=6)


@settings(max_examples=300, deadline=None)
@given(SUMMARIES)
def test_fast_graph_digest_encoding_is_the_canonical_json(value: list[Any]) -> None:
    """orjson must write byte for byte the canonical JSON the checked path writes (escapes included)."""
    assert built_json_digest(value) == json_digest(value)


def test_integers_past_64_bits_fall_back_to_the_standard_encoder() -> None:
    value = [[2**70, -(2**64), "a"]]
    assert built_json_digest(value) == json_digest(value)


def test_graph_digest_is_unchanged_by_the_fast_encoder() -> None:
    nodes = [source(), source(id="history:000000008-000000012", dependencies=(), content='q"\\\n\u2028\U0001f600')]
    graph = ContextGraph(nodes)
    assert graph.digest == json_digest(sorted(node_summary(node) for node in nodes))
