"""History reaches compressors parsed; derived history is checked once, reusing what it keeps."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lychd_core.assembly import ContextOrchestrator
from lychd_core.compression.messages import parse_messages
from lychd_core.compression.validation import ROOM_REASONS, in_play
from lychd_core.config import PluginPin
from lychd_core.digests import canonical_json
from lychd_core.errors import GraphError, HistoryError, MalformedProposalError, SelectionError
from lychd_core.families import CompactionProposal, CompactionRequest, PluginFamily, SourceRange
from lychd_core.graph import ContextGraph, ContextNode, TokenBudget, select
from lychd_core.graph.details import ExplanationMap
from lychd_core.history import compact_json
from lychd_core.registry import get_registry, registry_from
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import Authority, ContextClass, OmissionReason, Provenance, Requirement, Trust
from tests.support.conversations import answer, tool_call, tool_return, user
from tests.test_compression_assembly import big_tool_history, config
from tests.test_selection_properties import inputs as selection_inputs
from tests.toy_plugin.lychd_toy.plugins import NoOptions


class Spy:
    """Records what it is offered; proposes ``make(source)`` for the newest history source."""

    name, revision, preserves_trust, options_model = "test.spy", 1, True, NoOptions

    def __init__(self, make: Any = None) -> None:
        self.make = make
        self.requests: list[CompactionRequest] = []

    def propose(self, request: CompactionRequest, options: Any) -> tuple[CompactionProposal, ...]:
        self.requests.append(request)
        if self.make is None:
            return ()
        source = max(request.sources, key=lambda s: s.recency)
        return (
            CompactionProposal(
                output_id="spy:1",
                policy_id=request.policy.id,
                policy_digest=request.policy.digest,
                content=self.make(source),
                ranges=(SourceRange(source.node_id, 0, len(source.content)),),
                source_digests=((source.node_id, source.digest),),
            ),
        )


def orchestrator_with(spy: Spy) -> ContextOrchestrator:
    base = get_registry()
    registry = registry_from(
        [(PluginFamily.ROLE_POLICY, base.role_policy("roles.standard", 1)), (PluginFamily.COMPRESSOR, spy)]
    )
    cfg = config("over-budget", compressors=[PluginPin(name="test.spy", revision=1)], max_chars=20_000)
    return ContextOrchestrator(cfg, registry=registry)


def test_history_sources_arrive_as_their_checked_messages_and_exact_texts() -> None:
    spy = Spy()
    history = big_tool_history(6)
    orchestrator_with(spy).assemble(run_id="r", session_id="s", query="q", history=history)
    (request,) = spy.requests
    offered = [s for s in request.sources if s.context_class is ContextClass.HISTORY]
    assert offered
    for source in offered:
        assert source.messages is not None and source.message_texts is not None
        assert "".join(source.message_texts) == source.content
        assert [json.loads(text) for text in source.message_texts] == list(source.messages)
        assert [compact_json(m) for m in source.messages] == list(source.message_texts)
        assert all(any(m is original for original in history) for m in source.messages)  # not copied


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda s: "not messages at all", id="not-json"),
        pytest.param(lambda s: s.message_texts[0] + "{", id="kept-message-then-garbage"),
        pytest.param(lambda s: "".join(s.message_texts[2:]), id="return-without-its-call"),
        pytest.param(lambda s: s.message_texts[0] + '{"kind":"reply","parts":[]}', id="bad-kind"),
    ],
)
def test_derived_history_that_is_not_complete_messages_refuses_and_retains_nothing(make: Any) -> None:
    orchestrator = orchestrator_with(Spy(make))
    with pytest.raises(MalformedProposalError, match="not complete messages"):
        orchestrator.assemble(run_id="r", session_id="s", query="q", history=big_tool_history(6))
    assert orchestrator.active_runs() == frozenset()


def test_elision_binds_each_body_to_its_place_and_the_source_digest() -> None:
    history = big_tool_history(6)
    assembled = ContextOrchestrator(config("over-budget")).assemble(
        run_id="r", session_id="s", query="q", history=history
    )
    receipts = assembled.compression["compactions"]
    assert receipts
    for receipt in receipts:
        (source,) = receipt["sources"]
        (omission,) = receipt["omissions"]
        assert f"message 2 part 0 of {source['id']} ({source['digest']})" in omission["reason"]
    graph = assembled.plan.graph
    newest = assembled.history[-4:]
    body = newest[2]["parts"][0]["content"]
    assert body.startswith("line 5\n") and "full body: message 2 part 0 of history:" in body
    # Messages the elision does not change keep their exact bytes.
    newest_derived = [n for n in graph.nodes if n.provenance is Provenance.DERIVED_COMPACTION]
    derived = max(newest_derived, key=lambda n: n.recency)
    for kept in (history[-4], history[-3], history[-1]):
        assert compact_json(kept) in derived.content


@st.composite
def groups_and_derived(draw: st.DrawFn) -> tuple[list[tuple[dict[str, Any], str]], str]:
    """Checked messages of a group, and a derived content keeping some of them verbatim."""
    size = draw(st.integers(1, 4))
    messages: list[dict[str, Any]] = [user("q")]
    for i in range(size):
        messages += [tool_call("t", f"c{i}"), tool_return("t", f"c{i}", draw(st.text(max_size=30)))]
    messages.append(answer(draw(st.text(max_size=10))))
    known = [(m, compact_json(m)) for m in messages]
    pieces = []
    for message, text in known:
        change = draw(st.sampled_from(["keep", "edit", "drop", "recall", "unpair"]))
        if change == "keep":
            pieces.append(text)
        elif change == "edit":
            edited = {**message, "parts": [{**p, "content": "cut"} if "content" in p else p for p in message["parts"]]}
            pieces.append(compact_json(edited))
        elif change in ("recall", "unpair"):  # the calls it makes or answers change: pairing must be read again
            renamed = draw(st.sampled_from(["c0", "c9", "other"]))
            parts = [{**p, "tool_call_id": renamed} if "tool_call_id" in p else p for p in message["parts"]]
            if change == "unpair":
                parts = [{k: v for k, v in p.items() if k != "tool_call_id"} for p in parts]
            pieces.append(compact_json({**message, "parts": parts}))
    if draw(st.booleans()):
        pieces.insert(draw(st.integers(0, len(pieces))), draw(st.sampled_from(["{", "[]", '{"kind":"request"}', "x"])))
    return known, "".join(pieces)


@settings(max_examples=400, deadline=None)
@given(groups_and_derived())
def test_reusing_known_messages_reads_exactly_what_parsing_reads(case: tuple[list[Any], str]) -> None:
    known, content = case

    def outcome(reuse: list[Any]) -> Any:
        try:
            messages, texts = parse_messages(content, "derived", reuse)
        except HistoryError:
            return "refused"
        return [compact_json(m) for m in messages], texts

    assert outcome(known) == outcome([])


def node(deps: tuple[str, ...] = ()) -> ContextNode:
    return ContextNode.create(
        id="n",
        content="body " * 50,
        provenance=Provenance.AGENT,
        authority=Authority.NON_AUTHORITATIVE,
        trust=Trust.CONSTRAINED,
        context_class=ContextClass.HISTORY,
        requirement=Requirement.OPTIONAL,
        token_estimate=90,
        dependencies=deps,
    )


def test_with_dependencies_keeps_every_checked_field_and_checks_the_new_ones() -> None:
    rewired = node(("a",)).with_dependencies(("b", "c"))
    assert rewired == node(("b", "c"))  # the same node create() makes, digest and size included
    for bad in (("c", "b"), ("b", "b"), ("n",), ("",)):
        with pytest.raises(GraphError):
            node().with_dependencies(bad)


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.floats(allow_nan=False),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3) | st.integers(0, 3), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(json_like)
def test_canonical_json_refuses_exactly_floats_and_non_string_keys(value: Any) -> None:
    def bad(v: Any) -> bool:
        if isinstance(v, float):
            return True
        if isinstance(v, list):
            return any(bad(item) for item in v)
        if isinstance(v, dict):
            return any(not isinstance(k, str) or bad(item) for k, item in v.items())
        return False

    if bad(value):
        with pytest.raises(TypeError, match="canonical JSON"):
            canonical_json(value)
    else:
        assert json.loads(canonical_json(value)) == value


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(selection_inputs)
def test_left_out_for_room_agrees_with_every_explanation(case: tuple[Any, ...]) -> None:
    try:
        plan = select(*case)
    except SelectionError:
        return
    explanations = plan.explanations
    assert isinstance(explanations, ExplanationMap)
    state = in_play(plan)
    for i, node in enumerate(plan.graph.nodes):
        explanation = explanations[node.id]
        room = not explanation.selected and explanation.reason in ROOM_REASONS
        assert explanations.left_out_for_room(i) == room
        assert state(i) == (explanation.selected, room)


def test_an_alternative_closed_by_its_group_is_not_left_out_for_room() -> None:
    def alternative(node_id: str, tokens: int) -> ContextNode:
        return ContextNode.create(
            id=node_id,
            content="x" * tokens,
            provenance=Provenance.REPOSITORY,
            authority=Authority.NON_AUTHORITATIVE,
            trust=Trust.TRUSTED,
            context_class=ContextClass.SOURCE,
            requirement=Requirement.OPTIONAL,
            token_estimate=tokens,
            exclusive_group="views",
        )

    graph = ContextGraph([alternative("full", 50), alternative("names", 5), alternative("big", 10_000)])
    profile = RoleProfile("writer", frozenset(ContextClass), frozenset(Provenance), ())
    plan = select(graph, profile, TokenBudget(window=100, reserved_output=0))
    explanations = plan.explanations
    assert isinstance(explanations, ExplanationMap)
    reasons = {node_id: e.reason for node_id, e in explanations.items() if not e.selected}
    assert OmissionReason.ALTERNATIVE_SELECTED in reasons.values()
    for i, node in enumerate(graph.nodes):
        e = explanations[node.id]
        assert explanations.left_out_for_room(i) == (not e.selected and e.reason in ROOM_REASONS)
