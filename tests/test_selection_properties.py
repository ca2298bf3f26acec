"""Hypothesis properties of selection, checked against a naive reference selector.

The reference recomputes every root's closure from scratch with plain sets: the
optimized selector must reach exactly the same admissions and explain every omission
with a bound that the omitted closure really exceeds.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lychd_core.digests import canonical_json
from lychd_core.errors import RequiredHiddenError, RequiredOverBudgetError, SelectionError
from lychd_core.graph import (
    BOUND_ORDER,
    ContextGraph,
    ContextNode,
    Explanation,
    SelectionBounds,
    SelectionPlan,
    SelectionReason,
    TokenBudget,
    precedence_key,
    select,
    visible,
)
from lychd_core.graph.details import BOUNDS, CHECK_ORDER
from lychd_core.roles import PRODUCER_CLASSES, RoleProfile
from lychd_core.vocabulary import (
    AUTHORITY_CEILING,
    TRUST_CEILING,
    Authority,
    ContextClass,
    OmissionReason,
    Provenance,
    Requirement,
    Trust,
)

ROLES = ("writer", "reviewer", "fixer", "guest")
REFERENCE_REASONS = (
    OmissionReason.OUTSIDE_TURN_WINDOW,
    OmissionReason.TOKEN_BUDGET,
    OmissionReason.CHARACTER_LIMIT,
    OmissionReason.BYTE_LIMIT,
    OmissionReason.NODE_LIMIT,
)
REQUIREMENTS = [Requirement.OPTIONAL] * 8 + [Requirement.DEPENDENCY_REQUIRED] * 2 + [Requirement.REQUIRED]


@st.composite
def graphs(draw: st.DrawFn) -> ContextGraph:
    n = draw(st.integers(0, 14))
    names = draw(st.permutations([f"k{i:02d}" for i in range(n)]))  # id order is not dependency order
    nodes = []
    all_deps = [draw(st.lists(st.integers(0, i - 1), max_size=3, unique=True)) if i else [] for i in range(n)]
    depended = {d for deps in all_deps for d in deps}
    for i in range(n):
        deps = all_deps[i]
        provenance = draw(st.sampled_from(Provenance))
        requirement = draw(st.sampled_from(REQUIREMENTS))
        # alternatives (resolutions of one material): optional, and nothing depends on them
        alternative = requirement is Requirement.OPTIONAL and i not in depended
        nodes.append(
            ContextNode.create(
                id=names[i],
                content=draw(st.text(min_size=1, max_size=30)),
                provenance=provenance,
                authority=draw(st.sampled_from([a for a in Authority if a <= AUTHORITY_CEILING[provenance]])),
                trust=draw(st.sampled_from([t for t in Trust if t <= TRUST_CEILING[provenance]])),
                context_class=draw(st.sampled_from(ContextClass)),
                requirement=requirement,
                token_estimate=draw(st.integers(1, 40)),
                priority=draw(st.integers(-2, 2)),
                recency=draw(st.integers(0, 3)),
                visible_to=draw(st.none() | st.none() | st.frozensets(st.sampled_from(ROLES), max_size=2)),
                dependencies=sorted(names[d] for d in deps),
                relevance=draw(st.sampled_from([0, 0, 1, 2, 3])),
                exclusive_group=draw(st.sampled_from([None, "g0", "g1"])) if alternative else None,
            )
        )
    return ContextGraph(nodes)


@st.composite
def profiles(draw: st.DrawFn) -> RoleProfile:
    role = draw(st.sampled_from(ROLES))
    classes = frozenset(ContextClass) - draw(st.frozensets(st.sampled_from(ContextClass), max_size=5))
    if role == "reviewer":
        classes -= PRODUCER_CLASSES
    provenances = frozenset(Provenance) - draw(st.frozensets(st.sampled_from(Provenance), max_size=3))
    return RoleProfile(role, classes, provenances, ())


budgets = st.builds(
    lambda usable, reserve: TokenBudget(window=usable + reserve, reserved_output=reserve),
    st.integers(1, 250),
    st.integers(0, 50),
)
bounds_strategy = st.builds(
    SelectionBounds,
    max_nodes=st.none() | st.integers(0, 8),
    max_chars=st.none() | st.integers(0, 100),
    max_bytes=st.none() | st.integers(0, 140),
    max_history_groups=st.none() | st.integers(0, 4),
)
inputs = st.tuples(graphs(), profiles(), budgets, bounds_strategy)
fast = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- the naive reference ------------------------------------------------------------------


def reference(graph: ContextGraph, profile: RoleProfile, budget: TokenBudget, bounds: SelectionBounds) -> Any:
    """(error type, node id) on failure, else (selected, {id: (reason, root)}, {id: exceeded bounds})."""
    by_id = {node.id: node for node in graph}

    def closure(node_id: str) -> set[str]:
        seen, stack = {node_id}, [node_id]
        while stack:
            for dep in by_id[stack.pop()].dependencies:
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return seen

    hidden = {node.id for node in graph if not visible(profile, node)}
    blocked = {node_id for node_id in by_id if closure(node_id) & hidden}
    limits: list[int | None] = [
        bounds.max_history_groups,
        budget.usable,
        bounds.max_chars,
        bounds.max_bytes,
        bounds.max_nodes,
    ]
    used = [0] * 5
    selected: list[str] = []
    why: dict[str, tuple[SelectionReason, str]] = {}
    exceeded: dict[str, set[OmissionReason]] = {}
    needed: dict[str, tuple[list[int], list[int | None]]] = {}

    def cost(ids: set[str]) -> list[int]:
        members = [by_id[i] for i in ids]
        history = sum(1 for m in members if m.context_class is ContextClass.HISTORY)
        tokens = sum(m.token_estimate for m in members)
        return [history, tokens, sum(m.chars for m in members), sum(m.byte_size for m in members), len(members)]

    def over(need: list[int]) -> set[OmissionReason]:
        return {
            REFERENCE_REASONS[b] for b, limit in enumerate(limits) if limit is not None and used[b] + need[b] > limit
        }

    def admit(root: str, root_reason: SelectionReason, dependency_reason: SelectionReason) -> None:
        post: list[str] = []
        seen: set[str] = set()

        def visit(node_id: str) -> None:
            seen.add(node_id)
            for dep in by_id[node_id].dependencies:
                if dep not in why and dep not in seen:
                    visit(dep)
            post.append(node_id)

        visit(root)
        need = cost(set(post))
        for b in range(5):
            used[b] += need[b]
        for node_id in post:
            why[node_id] = (root_reason if node_id == root else dependency_reason, root)
        selected.extend(post)

    order = sorted(graph, key=precedence_key)
    required = [node for node in order if node.requirement is Requirement.REQUIRED]
    for node in required:
        if node.id in blocked:
            return (RequiredHiddenError, node.id)
    for node in required:
        if node.id not in why:
            if over(cost(closure(node.id) - set(why))):
                return (RequiredOverBudgetError, node.id)
            admit(node.id, SelectionReason.REQUIRED_ROOT, SelectionReason.REQUIRED_DEPENDENCY)
    taken: set[str] = set()
    for node in order:
        if node.requirement is not Requirement.OPTIONAL or node.id in why or node.id in blocked:
            continue
        if node.exclusive_group in taken:
            exceeded[node.id] = {OmissionReason.ALTERNATIVE_SELECTED}
            continue
        need = cost(closure(node.id) - set(why))
        too_big = over(need)
        if too_big:
            exceeded[node.id] = too_big
            needed[node.id] = (
                need,
                [None if limit is None else limit - u for limit, u in zip(limits, used, strict=True)],
            )
        else:
            admit(node.id, SelectionReason.OPTIONAL_ROOT, SelectionReason.OPTIONAL_DEPENDENCY)
            if node.exclusive_group is not None:
                taken.add(node.exclusive_group)
    return tuple(selected), why, exceeded, hidden, blocked, needed


def attempt(graph: ContextGraph, profile: RoleProfile, budget: TokenBudget, bounds: SelectionBounds) -> Any:
    try:
        return select(graph, profile, budget, bounds)
    except SelectionError as exc:
        return exc


# --- properties -------------------------------------------------------------------------


def doomed_as_a_dependency() -> tuple[Any, ...]:
    """Found by a random draw: ``k00`` (20 tokens, 2 bytes) is doomed by the byte limit while
    ``k06``'s closure is walked; by its own turn, last in precedence, the token budget is
    exceeded too and comes first in check order, so its explanation must name tokens."""

    def node(name: str, content: str = "0", **fields: Any) -> ContextNode:
        values: dict[str, Any] = {
            "provenance": Provenance.SYSTEM,
            "authority": Authority.NON_AUTHORITATIVE,
            "trust": Trust.UNTRUSTED,
            "context_class": ContextClass.POLICY,
            "requirement": Requirement.OPTIONAL,
            "token_estimate": 1,
            "priority": 0,
        }
        return ContextNode.create(id=name, content=content, **(values | fields))

    nodes = [
        node("k00", "00", provenance=Provenance.EXTERNAL, token_estimate=20, priority=-1),
        node("k01", "00"),
        *(node(f"k{i:02d}") for i in (2, 3, 4, 5)),
        node("k06", dependencies=["k00", "k01", "k02"]),
        node("k07", recency=1),
        *(node(f"k{i:02d}") for i in (8, 9, 10)),
        node("k11", dependencies=["k00", "k03", "k06"]),
    ]
    everyone = RoleProfile("writer", frozenset(ContextClass), frozenset(Provenance), ())
    return ContextGraph(nodes), everyone, TokenBudget(window=26, reserved_output=0), SelectionBounds(max_bytes=8)


@fast
@given(inputs)
@example(doomed_as_a_dependency())
def test_selection_matches_the_naive_reference(case: tuple[Any, ...]) -> None:
    graph = case[0]
    expected, outcome = reference(*case), attempt(*case)
    if isinstance(outcome, SelectionError):
        assert (type(outcome), outcome.node_id) == expected  # type: ignore[attr-defined]
        return
    assert not isinstance(expected[0], type), f"reference failed with {expected}, select did not"
    selected, why, exceeded, hidden, blocked, needed = expected
    assert outcome.selected == selected
    for node_id, explanation in outcome.explanations.items():
        node = graph.node(node_id)
        if node_id in why:
            assert (explanation.reason, explanation.root) == why[node_id]
        elif node_id in hidden:
            assert explanation.reason is OmissionReason.HIDDEN
        elif node_id in blocked:
            assert explanation.reason is OmissionReason.HIDDEN_DEPENDENCY
        elif node.requirement is Requirement.DEPENDENCY_REQUIRED:
            assert explanation.reason is OmissionReason.NOT_NEEDED
        elif explanation.reason is OmissionReason.ALTERNATIVE_SELECTED:
            assert exceeded[node_id] == {OmissionReason.ALTERNATIVE_SELECTED}
            assert explanation.blocking in outcome.selected
            assert graph.node(explanation.blocking).exclusive_group == node.exclusive_group
        else:
            assert explanation.reason in exceeded[node_id], (node_id, explanation, exceeded[node_id])
            if explanation.blocking is None:  # failed on its own closure: the first bound it exceeds
                first = next(BOUNDS[code].reason for code in CHECK_ORDER if BOUNDS[code].reason in exceeded[node_id])
                assert explanation.reason is first, (node_id, explanation, exceeded[node_id])
            check_bound_fields(explanation, *needed[node_id])


def check_bound_fields(explanation: Explanation, need: list[int], remained: list[int | None]) -> None:
    """The typed fields of a bound omission agree with the reference's whole-closure count."""
    assert explanation.bound is not None and explanation.bound.reason is explanation.reason
    if explanation.needs is None:  # omitted through a doomed dependency, which it names
        assert explanation.blocking is not None
        return
    assert explanation.remaining is not None
    # the reference's order: history, tokens, chars, bytes, nodes
    counted, left = explanation.needs.amounts, explanation.remaining
    ours = [counted.history_groups, counted.tokens, counted.chars, counted.bytes, counted.nodes]
    mine = [left.history_groups, left.tokens, left.chars, left.bytes, left.nodes]
    # Found when the selector met it, possibly during an earlier root's walk: then at least
    # as much remained as when the reference tries it as a root.
    assert all(
        (a is None) == (b is None) and (a is None or b is None or a >= b) for a, b in zip(mine, remained, strict=True)
    )
    if mine == remained:
        if explanation.needs.lower_bound:
            assert all(a is not None and a <= b for a, b in zip(ours, need, strict=True))
        else:
            assert ours == need
    # the bound is the first, in the fixed order, that the counted closure exceeds
    over = [b for b in BOUND_ORDER if (left.of(b) is not None and (counted.of(b) or 0) > (left.of(b) or 0))]
    assert over and over[0] is explanation.bound


@fast
@given(inputs)
def test_same_inputs_give_byte_identical_plans_whatever_the_member_order(case: tuple[Any, ...]) -> None:
    graph, profile, budget, bounds = case
    first = attempt(*case)
    if isinstance(first, SelectionError):
        again = attempt(ContextGraph(reversed(graph.nodes)), profile, budget, bounds)
        assert type(again) is type(first) and str(again) == str(first)
        return
    for other in (graph, ContextGraph(reversed(graph.nodes))):
        second = select(other, profile, budget, bounds)
        assert canonical_json(second.to_json()) == canonical_json(first.to_json())


@fast
@given(inputs)
def test_plan_invariants(case: tuple[Any, ...]) -> None:
    graph, profile, budget, bounds = case
    plan = attempt(*case)
    if isinstance(plan, SelectionError):
        return
    assert isinstance(plan, SelectionPlan)
    # every node explained exactly once
    assert list(plan.explanations) == [node.id for node in graph]
    assert [e.node_id for e in plan.explanations.values()] == [node.id for node in graph]
    selected = set(plan.selected)
    assert len(selected) == len(plan.selected)
    assert selected == {node_id for node_id, e in plan.explanations.items() if e.selected}
    # selected tokens within usable, and the accounting adds up
    tokens = sum(graph.node(node_id).token_estimate for node_id in plan.selected)
    assert plan.accounting.selected == tokens <= budget.usable
    assert plan.accounting.remaining == budget.usable - tokens
    for limit, used in (
        (bounds.max_nodes, plan.accounting.selected_nodes),
        (bounds.max_chars, plan.accounting.selected_chars),
        (bounds.max_bytes, plan.accounting.selected_bytes),
        (bounds.max_history_groups, plan.accounting.selected_history_groups),
    ):
        assert limit is None or used <= limit
    for position, node_id in enumerate(plan.selected):
        node = graph.node(node_id)
        # no hidden node selected, and every selected closure selected (dependencies admitted first)
        assert visible(profile, node)
        assert set(graph.closure(node_id)) <= selected
        assert all(plan.selected.index(dep) < position for dep in node.dependencies)
        assert plan.explanations[node_id].tokens == node.token_estimate
    for node in graph:
        if node.requirement is Requirement.REQUIRED:
            assert node.id in selected


@fast
@given(inputs)
def test_omitting_a_root_never_changes_other_admissions(case: tuple[Any, ...]) -> None:
    graph, profile, budget, bounds = case
    plan = attempt(*case)
    if isinstance(plan, SelectionError):
        return
    nobody = frozenset({"nobody-at-all"})
    for node_id in plan.omitted:
        # Hide the omitted node from everyone: everything else must be decided the same way.
        nodes = [dataclasses.replace(n, visible_to=nobody) if n.id == node_id else n for n in graph]
        again = select(ContextGraph(nodes), profile, budget, bounds)
        assert again.selected == plan.selected


@pytest.mark.parametrize("seed", range(3))
def test_a_random_dag_of_2000_nodes_matches_the_reference(seed: int) -> None:
    import random

    rng = random.Random(seed)
    nodes = []
    for i in range(2_000):
        deps = sorted({f"n{rng.randrange(i):05d}" for _ in range(rng.randint(0, 4))}) if i else []
        nodes.append(
            ContextNode.create(
                id=f"n{i:05d}",
                content="x" * rng.randint(1, 50),
                provenance=Provenance.REPOSITORY,
                authority=Authority.NON_AUTHORITATIVE,
                trust=Trust.TRUSTED,
                context_class=ContextClass.HISTORY if rng.random() < 0.1 else ContextClass.SOURCE,
                requirement=Requirement.OPTIONAL,
                token_estimate=rng.randint(1, 50),
                priority=rng.randint(0, 3),
                recency=rng.randint(0, 100),
                dependencies=deps,
            )
        )
    graph = ContextGraph(nodes)
    profile = RoleProfile("writer", frozenset(ContextClass), frozenset(Provenance), ())
    budget = TokenBudget(window=3_000 + 500 * seed, reserved_output=0)
    case = (graph, profile, budget, SelectionBounds(max_history_groups=5 * seed or None))
    selected, _why, exceeded, _hidden, _blocked, _needed = reference(*case)
    plan = select(*case)
    assert plan.selected == selected
    for node_id, explanation in plan.explanations.items():
        if not explanation.selected:
            assert explanation.reason in exceeded[node_id]
