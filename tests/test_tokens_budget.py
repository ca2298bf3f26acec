"""With no model window known there is no token budget: the character cap alone bounds, and the plan says so."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.assembly import ContextOrchestrator
from lychd_core.assembly.bounds import NO_TOKEN_BUDGET
from lychd_core.blocks import Block, Layer
from lychd_core.config import default_config, parse_config
from lychd_core.errors import ContextBudgetExceededError
from lychd_core.registry import get_registry
from lychd_core.tokens.resolve import resolve_counter

HIEROGLYPHS = "\U00013000" * 30_000  # four o200k_base tokens a character: more tokens than characters


def exact_config(**governors: Any) -> Any:
    data = default_config().model_dump(mode="python")
    data["tokens"] = {"counter": "o200k_base@1"}
    data["governors"] = {**data["governors"], **governors}
    return parse_config(data, "test")


def assemble(orchestrator: ContextOrchestrator, text: str) -> Any:
    block = Block(layer=Layer.CODEX, key="glyphs.txt", text=text)
    return orchestrator.assemble(run_id="r", session_id="s", query="What do they say?", codex=[block])


def test_no_window_no_token_budget_the_character_cap_alone_bounds() -> None:
    config = exact_config()
    tokens = resolve_counter(config, get_registry()).count(HIEROGLYPHS)
    assert tokens > config.governors.char_cap > len(HIEROGLYPHS)  # a cap in characters is no token budget
    assembled = assemble(ContextOrchestrator(config), HIEROGLYPHS)
    governed = assembled.to_json()["governed"]
    assert governed["usable_tokens"] is None and governed["token_budget"] == NO_TOKEN_BUDGET
    assert assembled.bounds.usable_tokens is None
    assert assembled.plan.accounting.selected >= tokens  # counted, and not bounded by a made-up budget


def test_no_window_the_character_cap_still_refuses() -> None:
    with pytest.raises(ContextBudgetExceededError, match="no model window is known, so the character cap alone"):
        assemble(ContextOrchestrator(exact_config(char_cap=20_000)), HIEROGLYPHS)


def test_with_a_window_the_token_budget_binds_independently_of_the_cap() -> None:
    orchestrator = ContextOrchestrator(exact_config(), window=100_000, reserve_output=1_000)
    with pytest.raises(ContextBudgetExceededError, match="tokens of the 100000-token window"):
        assemble(orchestrator, HIEROGLYPHS)  # 30,000 characters fit the cap; 120,000 tokens do not fit
    assert assemble(orchestrator, HIEROGLYPHS[:20_000]).bounds.usable_tokens == 99_000
