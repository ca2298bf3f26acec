"""A batch's derived nodes are wired to each other when validated, so replacing builds none twice."""

from __future__ import annotations

import pytest

from lychd_core.compression import replace, validate_proposal, validate_proposals
from lychd_core.errors import ExistingOutputIdError
from lychd_core.graph import ContextNode
from tests.support.compaction import BIG, POLICY, Scenario, scenario
from tests.support.graphs import node

CHAIN = 6  # h0 is the newest group; each older h<k> depends on h<k-1>, as history does


def chain() -> Scenario:
    return scenario(
        [node("h0", 400, content=BIG), *(node(f"h{k}", 400, f"h{k - 1}", content=BIG) for k in range(1, CHAIN))]
    )


def proposals(s: Scenario, order: range) -> list:  # type: ignore[type-arg]
    return [s.proposal(f"h{k}", output_id=f"c{k}") for k in order]


@pytest.mark.parametrize("order", [range(1, CHAIN), range(CHAIN - 1, 0, -1)], ids=["newest first", "oldest first"])
def test_a_batch_replaces_to_the_graph_single_validations_give(order: range) -> None:
    s = chain()
    batch = validate_proposals(proposals(s, order), s.graph, s.plan, POLICY, max_chars=4000)
    singles = [validate_proposal(p, s.graph, s.plan, POLICY, max_chars=4000) for p in proposals(s, order)]
    assert [c.receipt for c in batch] == [c.receipt for c in singles]
    assert replace(s.graph, batch).digest == replace(s.graph, singles).digest
    wired = replace(s.graph, batch)
    assert wired["c1"].dependencies == ("h0",)
    assert all(wired[f"c{k}"].dependencies == (f"c{k - 1}",) for k in range(2, CHAIN))


def test_newest_first_the_derived_nodes_are_built_once(monkeypatch: pytest.MonkeyPatch) -> None:
    s = chain()
    batch = validate_proposals(proposals(s, range(1, CHAIN)), s.graph, s.plan, POLICY, max_chars=4000)
    assert [c.node.dependencies for c in batch] == [("h0",), *((f"c{k - 1}",) for k in range(2, CHAIN))]
    rebuilt: list[str] = []
    real = ContextNode.with_dependencies

    def counting(self: ContextNode, dependencies: object) -> ContextNode:
        rebuilt.append(self.id)
        return real(self, dependencies)  # type: ignore[arg-type]

    monkeypatch.setattr(ContextNode, "with_dependencies", counting)
    replace(s.graph, batch)
    assert rebuilt == []
    oldest_first = validate_proposals(proposals(s, range(CHAIN - 1, 0, -1)), s.graph, s.plan, POLICY, max_chars=4000)
    replace(s.graph, oldest_first)
    assert sorted(rebuilt) == [f"c{k}" for k in range(2, CHAIN)]  # wired when replaced, as before


def test_two_proposals_with_one_output_id_are_still_refused_when_replaced() -> None:
    s = chain()
    twins = [s.proposal("h1", output_id="c"), s.proposal("h2", output_id="c")]
    batch = validate_proposals(twins, s.graph, s.plan, POLICY, max_chars=4000)
    assert batch[1].node.dependencies == ()  # h2's dependency h1 is inside the node of the same id
    with pytest.raises(ExistingOutputIdError, match="two compactions both create 'c'"):
        replace(s.graph, batch)
