"""The Pydantic AI adapter's cache points, pre-count and usage reports, with a real Agent and FunctionModel."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import CachePoint, ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from lychd_core.blocks import Block, Layer
from lychd_core.config import Governors, default_config, parse_config
from lychd_core.errors import RequestInputLimitError
from lychd_core.integrations import GovernedContext, OutboundBound
from lychd_core.integrations.pydantic_ai_cache import cache_floor
from lychd_core.registry import get_registry
from lychd_core.tokens import CalibrationStore
from lychd_core.tokens.resolve import resolve_counter

FLOOR = [Block(layer=Layer.IDENTITY, key="identity", text="You are careful.")]


def cache_points(messages: list[ModelMessage]) -> list[tuple[int, int]]:
    return [
        (index, at)
        for index, message in enumerate(messages)
        if isinstance(message, ModelRequest)
        for at, part in enumerate(message.parts)
        if isinstance(part, UserPromptPart) and not isinstance(part.content, str)
        for item in part.content
        if isinstance(item, CachePoint)
    ]


class Recorder:
    def __init__(self) -> None:
        self.received: list[list[ModelMessage]] = []
        self.settings: list[Any] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.received.append(list(messages))
        self.settings.append(info.model_settings)
        return ModelResponse(
            parts=[TextPart("answer")],
            usage=RequestUsage(input_tokens=40 * len(messages), cache_read_tokens=30, cache_write_tokens=5),
        )


def run_turns(capability: GovernedContext[None], model: Any, turns: int) -> list[ModelMessage]:
    agent = Agent(model, capabilities=[capability])
    history: list[ModelMessage] = []
    for index in range(turns):
        history = asyncio.run(agent.run(f"turn {index}", message_history=history)).all_messages()
    return history


def test_one_cache_point_ends_the_retained_settled_history_and_history_stays_clean() -> None:
    recorder = Recorder()
    bounds: list[OutboundBound] = []
    capability: GovernedContext[None] = GovernedContext(floor=FLOOR, cache_points=True, on_bound=bounds.append)
    history = run_turns(capability, FunctionModel(recorder), 4)
    assert cache_points(recorder.received[0]) == []  # nothing settled yet: no history cache point
    for received in recorder.received[1:]:
        points = cache_points(received)
        assert len(points) == 1
        assert points[0][0] == len(received) - 3  # the last settled user prompt (prompt, answer, then the new turn)
    assert cache_points(history) == []  # the run's own messages were never edited
    assert [b.cache_points for b in bounds] == [1, 2, 2, 2]  # the floor, then the floor and the history


def test_the_floor_is_cached_through_the_unified_setting_unless_the_caller_set_one() -> None:
    """FunctionModel drops settings it does not support, so the request context is checked directly."""
    plain = SimpleNamespace(model_settings=None)
    assert cache_floor(plain) == 1  # type: ignore[arg-type]
    assert plain.model_settings == {"cache": {"messages": False}}
    for own in ({"cache": True}, {"anthropic_cache_instructions": True}, {"anthropic_cache": "1h"}):
        given = SimpleNamespace(model_settings=dict(own))
        assert cache_floor(given) == 0  # type: ignore[arg-type]
        assert given.model_settings == own


def test_usage_reports_compare_the_estimate_with_the_provider_and_carry_cache_tokens() -> None:
    config = parse_config({**default_config().model_dump(mode="python"), "tokens": {"counter": "o200k_base@1"}}, "t")
    counter = resolve_counter(config, get_registry())
    usages: list[OutboundBound] = []
    capability: GovernedContext[None] = GovernedContext(token_counter=counter, on_usage=usages.append)
    run_turns(capability, FunctionModel(Recorder()), 3)
    assert [u.reported_input_tokens for u in usages] == [40, 120, 200]
    assert all(u.cache_read_tokens == 30 and u.cache_write_tokens == 5 for u in usages)
    assert all(u.token_counter == "o200k_base@1" and (u.estimated_tokens or 0) > 0 for u in usages)
    json.dumps([u.to_json() for u in usages])  # the --json form


class CountingModel(FunctionModel):
    """A FunctionModel that can count its tokens before a request, as Anthropic's can."""

    def __init__(self, function: Any, tokens: int) -> None:
        super().__init__(function)
        self.tokens = tokens

    async def count_tokens(self, messages: Any, model_settings: Any, model_request_parameters: Any) -> RequestUsage:
        return RequestUsage(input_tokens=self.tokens)


def test_a_model_that_counts_is_pre_counted_and_reported() -> None:
    bounds: list[OutboundBound] = []
    capability: GovernedContext[None] = GovernedContext(window=8_000, precount=True, on_bound=bounds.append)
    run_turns(capability, CountingModel(Recorder(), 1_234), 1)
    assert bounds[0].counted_tokens == 1_234


def test_a_model_without_count_tokens_reports_none() -> None:
    bounds: list[OutboundBound] = []
    capability: GovernedContext[None] = GovernedContext(precount=True, on_bound=bounds.append)
    run_turns(capability, FunctionModel(Recorder()), 1)
    assert bounds[0].counted_tokens is None


def test_a_pre_count_past_the_limit_refuses_before_the_model_is_called() -> None:
    recorder = Recorder()
    capability: GovernedContext[None] = GovernedContext(
        governors=Governors(), window=8_000, output_reserve=1_000, precount=True
    )
    with pytest.raises(RequestInputLimitError, match="would use 9000 input tokens"):
        run_turns(capability, CountingModel(recorder, 9_000), 1)
    assert recorder.received == []


def test_provider_usage_calibrates_the_models_ratio(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path)
    capability: GovernedContext[None] = GovernedContext(calibration=store)
    run_turns(capability, FunctionModel(Recorder()), 2)
    ratios = store.load()
    assert len(ratios) == 1 and next(iter(ratios)).startswith("function:")
    assert next(iter(ratios.values())).samples == 2


def test_from_config_binds_the_models_own_counter() -> None:
    data = default_config().model_dump(mode="python")
    data["tokens"] = {"counter": "utf8-bytes@1", "models": {"openai:gpt-4o": {"counter": "o200k_base@1"}}}
    config = parse_config(data, "t")
    assert GovernedContext.from_config(config, model="openai:gpt-4o").token_counter.pin == "o200k_base@1"  # type: ignore[union-attr]
    assert GovernedContext.from_config(config).token_counter.pin == "utf8-bytes@1"  # type: ignore[union-attr]
