"""The derived node in its source's place (``derived_node``), kept per proposal, and the graph digest's fast encoder.

The memo (``lychd_core.compression.derived.DERIVED``) holds each proposal's node while the
proposal lives, keyed by the object: it must never change what validation gives.
"""

from __future__ import annotations

import dataclasses
import gc
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lychd_core.compression import validate_proposals
from lychd_core.compression.derived import DERIVED, derived_node
from lychd_core.compression.memo import ProposalMemo
from lychd_core.digests import built_json_digest, json_digest
from lychd_core.errors import GraphError
from lychd_core.families import CompactionPolicy, CompactionProposal, SourceRange
from lychd_core.graph import ContextGraph, ContextNode, TokenBudget, select
from lychd_core.graph.graph import node_summary
from lychd_core.roles import RoleProfile
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


def proposal_for(*nodes: ContextNode, id: str | None = None, content: str = "short") -> CompactionProposal:
    ordered = sorted(nodes, key=lambda n: n.id)
    return CompactionProposal(
        output_id="elided:" + ordered[0].id if id is None else id,
        policy_id=POLICY.id,
        policy_digest=POLICY.digest,
        content=content,
        ranges=tuple(SourceRange(n.id, 0, len(n.content)) for n in ordered),
        source_digests=tuple((n.id, n.digest) for n in ordered),
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


# --- the derived node kept per proposal (compression.derived.DERIVED) ---


NEWER = "history:000000008-000000012"
WRITER = RoleProfile("writer", frozenset(ContextClass), frozenset(Provenance), ())


def group(**overrides: Any) -> ContextNode:
    """A trusted history group (repository material may be trusted; agent material at most constrained)."""
    return source(**({"provenance": Provenance.REPOSITORY, "trust": Trust.TRUSTED, "recency": 8} | overrides))


def fresh(proposal: CompactionProposal) -> CompactionProposal:
    """An equal proposal that is another object: the memo never finds it."""
    return dataclasses.replace(proposal)


def test_the_same_proposal_with_the_same_facts_is_the_same_node() -> None:
    origin = group()
    proposal = proposal_for(origin)
    first, label = derived_node(proposal, (origin,), POLICY, 3, {})
    again, label_again = derived_node(proposal, (group(),), POLICY, 3, {})  # an equal source, built anew
    assert again is first and label_again is label
    rebuilt, _ = derived_node(fresh(proposal), (origin,), POLICY, 3, {})
    assert rebuilt is not first and rebuilt == first and rebuilt.digest == first.digest


FACTS = {
    "recency": st.integers(0, 50),
    "priority": st.integers(-5, 50),
    "requirement": st.sampled_from([Requirement.OPTIONAL, Requirement.DEPENDENCY_REQUIRED]),
    "visible_to": st.none() | st.frozensets(st.sampled_from(["writer", "reviewer"]), min_size=1),
    "trust": st.sampled_from([Trust.TRUSTED, Trust.UNTRUSTED]),
    "dependencies": st.sampled_from([(), (NEWER,), ("history:000000012-000000016",)]),
}


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(
        st.tuples(
            st.fixed_dictionaries({}, optional=FACTS),
            st.booleans(),  # the policy preserves trust
            st.sampled_from([None, {NEWER: "elided:history:000000008-000000012"}]),  # an earlier proposal's rename
            st.sampled_from([3, 4]),  # characters per token
        ),
        min_size=1,
        max_size=6,
    )
)
def test_the_memo_never_changes_the_derived_node(steps: list[tuple[dict[str, Any], bool, Any, int]]) -> None:
    """Offered again and again with facts that change or not, the node is the one a fresh build gives."""
    proposal = proposal_for(group())
    for facts, preserves, renamed, cpt in steps:
        origin = group(**facts)
        policy = dataclasses.replace(POLICY, preserves_trust=preserves)
        node, label = derived_node(proposal, (origin,), policy, cpt, {}, renamed=renamed)
        expected, expected_label = derived_node(fresh(proposal), (origin,), policy, cpt, {}, renamed=renamed)
        assert node == expected and node.digest == expected.digest and label == expected_label


def test_a_counter_is_a_fact() -> None:
    origin = group()
    proposal = proposal_for(origin)
    by_chars, _ = derived_node(proposal, (origin,), POLICY, 3, {})
    counted, _ = derived_node(proposal, (origin,), POLICY, 3, {}, count=lambda text: 40)
    assert (by_chars.token_estimate, counted.token_estimate) == (2, 40)


def test_several_sources_take_their_highest_place_and_shared_visibility() -> None:
    further = ("history:000000012-000000016",)
    newer = group(id=NEWER, recency=12, priority=9, visible_to=frozenset({"writer"}), dependencies=further)
    older = group(recency=4, priority=3, visible_to=frozenset({"writer", "reviewer"}), dependencies=(NEWER,))
    proposal = proposal_for(older, newer)
    node, _ = derived_node(proposal, (older, newer), POLICY, 3, {})
    assert (node.recency, node.priority, node.visible_to) == (12, 9, frozenset({"writer"}))
    assert node.dependencies == further  # the sources' own edge is inside the node
    again, _ = derived_node(proposal, (older, newer), POLICY, 3, {})
    assert again is node


def test_validating_a_settled_batch_again_gives_the_same_compactions() -> None:
    nodes = [group(id=f"history:{i:09d}-{i + 4:09d}", recency=i + 4, dependencies=()) for i in (0, 4)]
    proposals = [proposal_for(node) for node in nodes]

    def validate() -> list[Any]:
        graph = ContextGraph([dataclasses.replace(node) for node in nodes])  # the next call's graph: equal, not same
        plan = select(graph, WRITER, TokenBudget(window=400, reserved_output=1))  # one fits, one is out for room
        return validate_proposals(proposals, graph, plan, POLICY, max_chars=1_000)

    first, second = validate(), validate()
    assert [c.node for c in first] == [c.node for c in second]
    assert all(a.node is b.node for a, b in zip(first, second, strict=True))
    assert [c.receipt for c in first] == [c.receipt for c in second]


def test_freed_proposals_leave_a_bounded_memo() -> None:
    memo: ProposalMemo[int] = ProposalMemo()
    kept = proposal_for(group())
    memo.put(kept, 1)
    for value in range(3 * ProposalMemo.SWEEP_AFTER):
        memo.put(proposal_for(group(), content=f"c{value}"), value)  # freed at once
    gc.collect()
    assert memo.get(kept) == 1 and len(memo) == 1
    assert memo.held <= ProposalMemo.SWEEP_AFTER
    assert memo.get(fresh(kept)) is None, "keyed by the object, never by an equal value"


def test_the_core_memo_holds_only_live_proposals() -> None:
    origin = group()
    proposal = proposal_for(origin)
    derived_node(proposal, (origin,), POLICY, 3, {})
    assert DERIVED.get(proposal) is not None
    before = len(DERIVED)
    del proposal
    gc.collect()
    assert len(DERIVED) == before - 1


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
