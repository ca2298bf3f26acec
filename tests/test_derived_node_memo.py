"""A proposal offered again with the same facts is the same derived node; any other fact builds anew.

The memo (``lychd_core.compression.derived.DERIVED``) holds each proposal's node while the
proposal lives, keyed by the object: it must never change what validation gives.
"""

from __future__ import annotations

import dataclasses
import gc
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.compression import validate_proposals
from lychd_core.compression.derived import DERIVED, derived_node
from lychd_core.compression.memo import ProposalMemo
from lychd_core.families import CompactionPolicy, CompactionProposal, SourceRange
from lychd_core.graph import ContextGraph, ContextNode, TokenBudget, select
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement, Trust

POLICY = CompactionPolicy("compress.test", 1, "sha256:" + "1" * 64, preserves_trust=True)
NEWER = "history:000000008-000000012"
WRITER = RoleProfile("writer", frozenset(ContextClass), frozenset(Provenance), ())


def group(**overrides: Any) -> ContextNode:
    fields: dict[str, Any] = {
        "id": "history:000000004-000000008",
        "content": "x" * 900,
        "provenance": Provenance.REPOSITORY,
        "authority": Authority.NON_AUTHORITATIVE,
        "trust": Trust.TRUSTED,
        "context_class": ContextClass.HISTORY,
        "requirement": Requirement.OPTIONAL,
        "token_estimate": 300,
        "priority": 10,
        "recency": 8,
        "dependencies": (NEWER,),
    }
    return ContextNode.create(**(fields | overrides))


def proposal_for(*nodes: ContextNode, content: str = "short") -> CompactionProposal:
    ordered = sorted(nodes, key=lambda n: n.id)
    return CompactionProposal(
        output_id="elided:" + ordered[0].id,
        policy_id=POLICY.id,
        policy_digest=POLICY.digest,
        content=content,
        ranges=tuple(SourceRange(n.id, 0, len(n.content)) for n in ordered),
        source_digests=tuple((n.id, n.digest) for n in ordered),
    )


def fresh(proposal: CompactionProposal) -> CompactionProposal:
    """An equal proposal that is another object: the memo never finds it."""
    return dataclasses.replace(proposal)


def test_the_same_proposal_with_the_same_facts_is_the_same_node() -> None:
    source = group()
    proposal = proposal_for(source)
    first, label = derived_node(proposal, (source,), POLICY, 3, {})
    again, label_again = derived_node(proposal, (group(),), POLICY, 3, {})  # an equal source, built anew
    assert again is first and label_again is label
    rebuilt, _ = derived_node(fresh(proposal), (source,), POLICY, 3, {})
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
        source = group(**facts)
        policy = dataclasses.replace(POLICY, preserves_trust=preserves)
        node, label = derived_node(proposal, (source,), policy, cpt, {}, renamed=renamed)
        expected, expected_label = derived_node(fresh(proposal), (source,), policy, cpt, {}, renamed=renamed)
        assert node == expected and node.digest == expected.digest and label == expected_label


def test_a_counter_is_a_fact() -> None:
    source = group()
    proposal = proposal_for(source)
    by_chars, _ = derived_node(proposal, (source,), POLICY, 3, {})
    counted, _ = derived_node(proposal, (source,), POLICY, 3, {}, count=lambda text: 40)
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
    source = group()
    proposal = proposal_for(source)
    derived_node(proposal, (source,), POLICY, 3, {})
    assert DERIVED.get(proposal) is not None
    before = len(DERIVED)
    del proposal
    gc.collect()
    assert len(DERIVED) == before - 1
