"""The derived node: provenance, trust, visibility, label, receipt and replacement."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.compression import replace, validate_proposal
from lychd_core.families import CompactionPolicy
from lychd_core.graph import ContextGraph, select
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Trust
from tests.support.compaction import BIG, POLICY, WRITER, private, scenario
from tests.support.graphs import budget, node


def test_derived_node_is_a_non_authoritative_compaction_of_one_class() -> None:
    s = scenario()
    compaction = s.validate(s.proposal("a", "b"))
    derived = compaction.node
    assert derived.provenance is Provenance.DERIVED_COMPACTION
    assert derived.authority is Authority.NON_AUTHORITATIVE
    assert derived.context_class is ContextClass.SOURCE
    assert derived.trust is Trust.TRUSTED  # every source trusted, the policy preserves trust
    assert compaction.replaced == ("a", "b")


def test_trust_is_untrusted_unless_all_trusted_and_preserved() -> None:
    s = scenario()
    lossy = CompactionPolicy(POLICY.name, POLICY.revision, POLICY.digest, preserves_trust=False)
    assert validate_proposal(s.proposal("a"), s.graph, s.plan, lossy, max_chars=4000).node.trust is Trust.UNTRUSTED
    mixed = scenario([node("a", 400, content=BIG), node("c", 400, content=BIG, provenance=Provenance.AGENT)])
    assert mixed.graph["c"].trust is Trust.CONSTRAINED
    assert mixed.validate(mixed.proposal("a", "c")).node.trust is Trust.UNTRUSTED


def test_visibility_is_the_intersection_and_label_the_join() -> None:
    s = scenario(
        [
            node("a", 400, content=BIG, visible_to=["writer", "fixer"]),
            node("b", 400, content=BIG, visible_to=["writer", "evaluator"]),
        ]
    )
    compaction = s.validate(
        s.proposal("a", "b"), labels={"a": private("doc-a"), "b": PrivatizationLabel.public("doc-b")}
    )
    assert compaction.node.visible_to == frozenset({"writer"})
    assert compaction.label.privacy_class is PrivacyClass.PRIVATE
    assert compaction.label.material_parents == frozenset({"doc-a", "doc-b"})
    unlabelled = s.validate(s.proposal("a", "b"), labels={"a": private("doc-a")})
    assert unlabelled.label.privacy_class is PrivacyClass.RESTRICTED and not unlabelled.label.lineage_known


def test_receipt_links_sources_policy_budget_and_holds_no_text() -> None:
    s = scenario()
    proposal = s.proposal("a", invariants=("first lines verbatim",))
    receipt = s.validate(proposal, max_chars=1234).receipt
    data = receipt.to_json()
    assert data["policy"] == {"id": POLICY.id, "digest": POLICY.digest}
    assert data["sources"] == [{"id": "a", "digest": s.graph["a"].digest}]
    assert data["budget"] == {"max_chars": 1234} and data["graph"] == s.graph.digest
    assert data["saved"]["chars"] == len(BIG) - len("short summary") > 0
    assert data["invariants"] == ["first lines verbatim"]
    assert "word" not in str(data) and "short summary" not in str(data)
    assert receipt.digest.startswith("sha256:")


def test_replacement_rewires_dependents_and_keeps_everything_else() -> None:
    s = scenario()
    compaction = s.validate(s.proposal("a"))
    replaced = replace(s.graph, [compaction])
    assert "a" not in replaced and "compact:1" in replaced
    assert replaced["d"].dependencies == ("compact:1",)
    assert {n.id for n in replaced} == ({n.id for n in s.graph} - {"a"}) | {"compact:1"}
    assert s.graph["a"].content == BIG  # the source itself is untouched
    plan = select(replaced, WRITER, budget(10_000))
    assert plan.is_selected("compact:1") and plan.is_selected("d")


@st.composite
def chains(draw: st.DrawFn) -> tuple[ContextGraph, list[str]]:
    size = draw(st.integers(2, 8))
    trusts = draw(
        st.lists(
            st.sampled_from([Provenance.REPOSITORY, Provenance.AGENT, Provenance.MEMORY]), min_size=size, max_size=size
        )
    )
    roles = draw(st.lists(st.sampled_from([None, ("writer",), ("writer", "fixer")]), min_size=size, max_size=size))
    nodes = [
        node(
            f"n{i}",
            50,
            *([f"n{i + 1}"] if i + 1 < size else []),
            content="y" * 150,
            provenance=trusts[i],
            visible_to=roles[i],
        )
        for i in range(size)
    ]
    start = draw(st.integers(0, size - 1))
    end = draw(st.integers(start + 1, size))
    return ContextGraph(nodes), [f"n{i}" for i in range(start, end)]


@settings(max_examples=60, deadline=None)
@given(chains(), st.booleans())
def test_derivation_never_raises_trust_or_lowers_influence(case: tuple[ContextGraph, list[str]], keeps: bool) -> None:
    graph, sources = case
    s = scenario(list(graph.nodes))
    policy = CompactionPolicy(POLICY.name, POLICY.revision, POLICY.digest, preserves_trust=keeps)
    labels = {node_id: private(node_id) for node_id in sources[::2]}
    compaction = validate_proposal(s.proposal(*sources), s.graph, s.plan, policy, max_chars=4000, labels=labels)
    derived = compaction.node
    assert derived.trust <= min(s.graph[x].trust for x in sources)
    assert derived.authority is Authority.NON_AUTHORITATIVE
    for x in sources:
        roles = s.graph[x].visible_to
        assert roles is None or (derived.visible_to is not None and derived.visible_to <= roles)
        assert compaction.label.privacy_class >= labels.get(x, PrivatizationLabel.restricted_unknown()).privacy_class
    replaced = replace(s.graph, [compaction])  # a contiguous run of a chain never cycles
    assert len(replaced) == len(s.graph) - len(sources) + 1
    assert s.graph.digest == graph.digest
