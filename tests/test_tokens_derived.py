"""Compression-derived nodes are priced like their sources: by the configured token counter."""

from __future__ import annotations

from lychd_core.registry import get_registry
from lychd_core.tokens import reference_counter
from lychd_core.tokens.resolve import resolve_counter
from tests.support.compaction import scenario
from tests.test_tokens_budget import exact_config

SUMMARY = "\U00013000" * 12 + " the first two sources, summarised"


def test_a_derived_node_is_priced_by_the_counter_given() -> None:
    case = scenario()
    counter = resolve_counter(exact_config(), get_registry())
    proposal = case.proposal("a", "b", content=SUMMARY)
    exact = case.validate(proposal, count=counter)
    assert exact.node.token_estimate == counter.count(SUMMARY) > -(-len(SUMMARY) // 3)
    assert case.validate(proposal).node.token_estimate == -(-len(SUMMARY) // 3)  # no counter: the reference
    single = case.validate(case.proposal("a", content=SUMMARY), count=reference_counter(2))
    assert single.node.token_estimate == -(-len(SUMMARY) // 2)
