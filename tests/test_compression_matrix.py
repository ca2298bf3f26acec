"""Every case of the compaction matrix: one typed error each, nothing changed on refusal."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from lychd_core.compression import replace
from lychd_core.errors import (
    CompactionError,
    ContentBoundError,
    EmptyRangeError,
    ExistingOutputIdError,
    GraphDriftError,
    HiddenSourceError,
    MalformedProposalError,
    MissingSourceError,
    MixedClassesError,
    NotSmallerError,
    OverlappingRangesError,
    PolicyMismatchError,
    ProtectedSourceError,
    RangeBeyondContentError,
    RequiredSourceLostError,
    SelfSourceCycleError,
    SourceDigestMismatchError,
    UnselectedSourceError,
)
from lychd_core.families import CompactionProposal, SourceRange
from lychd_core.graph import ContextGraph
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement
from tests.support.compaction import BIG, Scenario, scenario
from tests.support.graphs import node, user

Case = Callable[[Scenario], CompactionProposal]

MATRIX: dict[str, tuple[type[CompactionError], Case]] = {
    "policy mismatch": (PolicyMismatchError, lambda s: s.proposal("a", policy_id="other@1")),
    "policy digest mismatch": (PolicyMismatchError, lambda s: s.proposal("a", policy_digest="sha256:" + "0" * 64)),
    "self-source cycle": (
        SelfSourceCycleError,
        lambda s: s.proposal("a", output_id="a"),
    ),
    "existing output id": (ExistingOutputIdError, lambda s: s.proposal("a", output_id="b")),
    "missing source": (
        MissingSourceError,
        lambda s: s.proposal("a", ranges=(SourceRange("ghost", 0, 3),), source_digests=(("ghost", "sha256:x"),)),
    ),
    "digest mismatch": (
        SourceDigestMismatchError,
        lambda s: s.proposal("a", source_digests=(("a", "sha256:" + "0" * 64),)),
    ),
    "lineage names other sources": (SourceDigestMismatchError, lambda s: s.proposal("a", source_digests=())),
    "range beyond content": (RangeBeyondContentError, lambda s: s.proposal("a", ranges=(SourceRange("a", 0, 10_000),))),
    "empty range": (EmptyRangeError, lambda s: s.proposal("a", ranges=(SourceRange("a", 5, 5),))),
    "negative range": (EmptyRangeError, lambda s: s.proposal("a", ranges=(SourceRange("a", -1, 5),))),
    "overlapping ranges": (
        OverlappingRangesError,
        lambda s: s.proposal("a", ranges=(SourceRange("a", 0, 10), SourceRange("a", 5, 20))),
    ),
    "unsorted ranges": (
        OverlappingRangesError,
        lambda s: s.proposal("a", "b", ranges=(SourceRange("b", 0, 10), SourceRange("a", 0, 10))),
    ),
    "no ranges": (MalformedProposalError, lambda s: s.proposal("a", ranges=())),
    "class that is not a ContextClass": (MalformedProposalError, lambda s: s.proposal("a", context_class="history")),
    "output id with a control character": (MalformedProposalError, lambda s: s.proposal("a", output_id="c\x00")),
    "content with a lone surrogate": (MalformedProposalError, lambda s: s.proposal("a", content="x\ud800")),
    "empty content": (MalformedProposalError, lambda s: s.proposal("a", content="")),
    "hidden source": (HiddenSourceError, lambda s: s.proposal("hidden")),
    "protected source (specification)": (ProtectedSourceError, lambda s: s.proposal("spec")),
    "protected source (query)": (ProtectedSourceError, lambda s: s.proposal("query")),
    "mixed classes": (MixedClassesError, lambda s: s.proposal("a", "tool")),
    "not smaller": (NotSmallerError, lambda s: s.proposal("a", content=BIG + "more")),
    "over the content bound": (ContentBoundError, lambda s: s.proposal("a", content="x" * 5000)),
}


@pytest.mark.parametrize("case", sorted(MATRIX))
def test_each_bad_proposal_has_its_own_typed_error(case: str) -> None:
    s = scenario()
    before = s.graph.digest
    error, make = MATRIX[case]
    proposal = make(s)
    with pytest.raises(error) as info:
        s.validate(proposal, max_chars=5000 if case == "not smaller" else 4000)
    assert type(info.value) is error, "each failure raises exactly its own subclass"
    assert isinstance(info.value, CompactionError) and str(info.value)
    assert s.graph.digest == before


def test_unselected_source() -> None:
    s = scenario([node("a", 400, content=BIG), node("dep", 5, requirement=Requirement.DEPENDENCY_REQUIRED)])
    assert s.plan.explanations["dep"].reason.value == "not-needed"
    with pytest.raises(UnselectedSourceError):
        s.validate(s.proposal("dep", content="x"))


def test_source_omitted_for_lack_of_room_is_still_a_candidate() -> None:
    s = scenario(usable=500)
    assert not s.plan.is_selected("b")
    compaction = s.validate(s.proposal("b"))
    assert compaction.replaced == ("b",)


def test_protected_by_authority_requirement_and_floor() -> None:
    nodes = [
        node("a", 400, content=BIG),
        user("instr", 400, content=BIG),
        node("req", 400, content=BIG, requirement=Requirement.REQUIRED),
        node("policy", 400, content=BIG, provenance=Provenance.SYSTEM, context_class=ContextClass.POLICY),
        node("finding", 400, content=BIG, context_class=ContextClass.FINDING, provenance=Provenance.REVIEW),
        node("env", 400, content=BIG, context_class=ContextClass.ENVIRONMENT, provenance=Provenance.APPLICATION),
    ]
    s = scenario(nodes)
    for source in ("instr", "req", "policy", "finding", "env"):
        with pytest.raises(ProtectedSourceError) as info:
            s.validate(s.proposal(source))
        assert info.value.node_id == source and info.value.protection
    with pytest.raises(ProtectedSourceError, match="Stable Floor"):
        s.validate(s.proposal("a"), stable_floor=frozenset({"a"}))
    assert s.graph["policy"].authority is Authority.NON_AUTHORITATIVE  # class alone protects it


def test_required_source_lost_at_replacement() -> None:
    s = scenario(
        [
            node("a", 400, content=BIG, requirement=Requirement.DEPENDENCY_REQUIRED),
            node("needs-a", 5, "a", requirement=Requirement.REQUIRED),
        ]
    )
    compaction = s.validate(s.proposal("a"))
    before = s.graph.digest
    with pytest.raises(RequiredSourceLostError) as info:
        replace(s.graph, [compaction])
    assert info.value.node_id == "a" and s.graph.digest == before


def test_graph_drift_between_validation_and_replacement() -> None:
    s = scenario()
    compaction = s.validate(s.proposal("a"))
    drifted = ContextGraph([*s.graph.nodes, node("new", 5)])
    with pytest.raises(GraphDriftError):
        replace(drifted, [compaction])
    changed = ContextGraph([dataclasses.replace(n, content="changed") if n.id == "b" else n for n in s.graph.nodes])
    with pytest.raises(GraphDriftError):
        replace(changed, [compaction])


def test_plan_for_another_graph_is_drift() -> None:
    s = scenario()
    other = scenario([*s.graph.nodes, node("extra", 5)])
    with pytest.raises(GraphDriftError):
        Scenario(other.graph, s.plan).validate(s.proposal("a"))


def test_two_compactions_of_one_source_or_one_output_id() -> None:
    s = scenario()
    first = s.validate(s.proposal("a"))
    again = s.validate(s.proposal("a", output_id="compact:2"))
    with pytest.raises(MissingSourceError):
        replace(s.graph, [first, again])
    same_id = s.validate(s.proposal("b"))
    with pytest.raises(ExistingOutputIdError):
        replace(s.graph, [first, same_id])


def test_rewiring_that_would_cycle_is_a_self_source_cycle() -> None:
    s = scenario([node("x", 400, "y", content=BIG), node("y", 5, "z"), node("z", 400, content=BIG)])
    compaction = s.validate(s.proposal("x", "z"))
    with pytest.raises(SelfSourceCycleError):
        replace(s.graph, [compaction])


def test_not_a_proposal_at_all() -> None:
    s = scenario()
    with pytest.raises(MalformedProposalError):
        s.validate("summary")  # type: ignore[arg-type]
    with pytest.raises(MalformedProposalError):
        s.validate(s.proposal("a", output_id="bad\nid"))
