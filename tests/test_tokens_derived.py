"""Compression-derived nodes are priced like their sources: by the configured token counter."""

from __future__ import annotations

from lychd_core.assembly import ContextOrchestrator
from lychd_core.registry import get_registry
from lychd_core.tokens import reference_counter
from lychd_core.tokens.resolve import resolve_counter
from tests.support.compaction import scenario
from tests.test_compression_assembly import big_tool_history, config
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


def test_an_assembly_with_an_exact_counter_prices_its_compactions_with_it() -> None:
    base = config("over-budget")
    cfg = base.model_copy(update={"tokens": exact_config().tokens})
    assembled = ContextOrchestrator(cfg).assemble(
        run_id="r", session_id="s", query="next?", history=big_tool_history(10)
    )
    compactions = assembled.compression_report.compactions
    assert compactions and assembled.bounds.token_counter == "o200k_base@1"
    counter = resolve_counter(cfg, get_registry())
    for compaction in compactions:
        assert compaction.node.token_estimate == max(1, counter.count(compaction.node.content))
        assert compaction.node.token_estimate != -(-len(compaction.node.content) // 3)
