"""The per-request token bound: window - output reserve, for every request of a run.

Accumulated run usage is accounting, not the context occupancy of the next request:
``input_tokens_limit`` bounds the sum over a run, ``per_request_input_tokens_limit``
(and GovernedContext's own check) bounds each request, tool follow-ups and retries
included.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent, ModelRetry, RunContext, UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage, UsageLimits

from lychd_core.blocks import Block, Layer
from lychd_core.config import AssemblyConfig, Governors, default_config
from lychd_core.errors import BudgetError, ContextBudgetExceededError, LychdError, RequestInputLimitError
from lychd_core.integrations import GovernedContext, request_usage_limits

WINDOW = 4_000
RESERVE = 1_000
LIMIT = WINDOW - RESERVE


def test_request_usage_limits_bound_each_request_not_the_run() -> None:
    limits = request_usage_limits(WINDOW, RESERVE)
    assert limits.per_request_input_tokens_limit == LIMIT
    assert limits.input_tokens_limit is None  # the run's accumulated usage is not the bound
    assert limits.request_limit == UsageLimits().request_limit
    based = request_usage_limits(WINDOW, RESERVE, base=UsageLimits(request_limit=7), count_tokens_before_request=True)
    assert (based.request_limit, based.count_tokens_before_request, based.per_request_input_tokens_limit) == (
        7,
        True,
        LIMIT,
    )


@pytest.mark.parametrize(
    "window, reserve, error",
    [
        (1_000, 1_000, ContextBudgetExceededError),
        (1_000, 5_000, ContextBudgetExceededError),
        (0, 0, BudgetError),
        (1_000, -1, BudgetError),
        ("1000", 0, BudgetError),
        (1_000, True, BudgetError),
    ],
)
def test_request_usage_limits_refuse_unusable_windows(window: Any, reserve: Any, error: type[LychdError]) -> None:
    with pytest.raises(error):
        request_usage_limits(window, reserve)


def reporting(input_tokens: list[int], executed: list[int]) -> Agent[None, str]:
    """Three tool rounds then text; the provider reports ``input_tokens[i]`` for request i."""

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = sum(1 for m in messages if isinstance(m, ModelResponse) and m.run_id == messages[-1].run_id)
        usage = RequestUsage(input_tokens=input_tokens[step], output_tokens=5)
        if step < 3:
            return ModelResponse(parts=[ToolCallPart("work", {"n": step})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    capability: GovernedContext[None] = GovernedContext(window=WINDOW, output_reserve=RESERVE)
    agent = Agent(FunctionModel(model), capabilities=[capability])

    @agent.tool_plain
    def work(n: int) -> str:
        executed.append(n)
        return "ok"

    return agent


def test_a_run_whose_total_input_exceeds_the_window_passes_when_each_request_fits() -> None:
    executed: list[int] = []
    agent = reporting([LIMIT, LIMIT, LIMIT, LIMIT], executed)
    result = agent.run_sync("go", usage_limits=request_usage_limits(WINDOW, RESERVE))
    assert result.output == "done" and executed == [0, 1, 2]
    assert result.usage.input_tokens == 4 * LIMIT > WINDOW
    with pytest.raises(UsageLimitExceeded):  # the cumulative limit would have stopped the same run
        reporting([LIMIT] * 4, []).run_sync("go", usage_limits=UsageLimits(input_tokens_limit=LIMIT))


@pytest.mark.parametrize("over_at", [0, 1, 3])
def test_every_request_gets_the_same_bound_before_its_response_advances_the_run(over_at: int) -> None:
    executed: list[int] = []
    tokens = [100, 100, 100, 100]
    tokens[over_at] = LIMIT + 1
    with pytest.raises(RequestInputLimitError) as caught:
        reporting(tokens, executed).run_sync("go")
    assert (caught.value.required, caught.value.available) == (LIMIT + 1, LIMIT)
    assert executed == list(range(min(over_at, 3)))  # the offending response's tool call never ran
    assert isinstance(caught.value, ContextBudgetExceededError)


def test_a_validation_retry_gets_the_same_bound() -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        retried = any(p.part_kind == "retry-feedback" for m in messages for p in m.parts) or any(
            "failed the application's validation" in str(getattr(p, "content", "")) for m in messages for p in m.parts
        )
        return ModelResponse(parts=[TextPart("again" if retried else "first")], usage=RequestUsage(input_tokens=50))

    governed: GovernedContext[None] = GovernedContext(window=WINDOW, output_reserve=RESERVE)
    agent: Agent[None, str] = Agent(FunctionModel(model), capabilities=[governed])

    @agent.output_validator
    def check(ctx: RunContext[None], output: str) -> str:
        if output == "first":
            raise ModelRetry("try again")
        return output

    assert agent.run_sync("hi").output == "again"

    def greedy_retry(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        response = model(messages, info)
        if response.parts[0].content == "again":  # type: ignore[union-attr]
            response.usage = RequestUsage(input_tokens=LIMIT + 50)
        return response

    agent.model = FunctionModel(greedy_retry)
    with pytest.raises(RequestInputLimitError):
        agent.run_sync("hi")


class CountingModel(FunctionModel):
    """A FunctionModel that can count tokens before a request, as some providers can."""

    def __init__(self, counted: int, called: list[int]) -> None:
        def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            called.append(1)
            return ModelResponse(parts=[TextPart("ok")])

        super().__init__(answer)
        self.counted = counted

    async def count_tokens(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> RequestUsage:
        return RequestUsage(input_tokens=self.counted)


def test_pre_counting_models_are_refused_before_the_request_is_sent() -> None:
    capability: GovernedContext[None] = GovernedContext(window=WINDOW, output_reserve=RESERVE)
    called: list[int] = []
    agent = Agent(CountingModel(LIMIT + 1, called), capabilities=[capability])
    with pytest.raises(UsageLimitExceeded, match="per_request_input_tokens_limit"):
        agent.run_sync("hi", usage_limits=capability.usage_limits(count_tokens_before_request=True))
    assert called == []
    fits = Agent(CountingModel(LIMIT, called), capabilities=[capability])
    assert fits.run_sync("hi", usage_limits=capability.usage_limits(count_tokens_before_request=True)).output == "ok"
    assert called == [1]


def test_from_config_takes_governors_reserve_and_window() -> None:
    config = default_config().model_copy(
        update={
            "governors": Governors(turn_window=3, char_cap=50_000),
            "assembly": AssemblyConfig(window=8_000, reserve_output=1_500),
        }
    )
    capability: GovernedContext[None] = GovernedContext.from_config(config)
    assert (capability.window, capability.input_token_limit, capability.char_cap) == (8_000, 6_500, 24_000)
    granted: GovernedContext[None] = GovernedContext.from_config(config, window=2_000)  # the grant's window wins
    assert (granted.input_token_limit, granted.char_cap) == (500, 6_000)
    assert granted.governors.turn_window == 3
    unknown: GovernedContext[None] = GovernedContext.from_config(default_config())
    assert (unknown.window, unknown.input_token_limit, unknown.char_cap) == (None, None, 96_000)
    with pytest.raises(BudgetError, match="known window"):
        unknown.usage_limits()


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"window": 1_000, "output_reserve": 1_000}, ContextBudgetExceededError),
        ({"window": 0}, BudgetError),
        ({"window": 1_000, "output_reserve": -5}, BudgetError),
        ({"governors": {"turn_window": 3}}, BudgetError),
        ({"governors": Governors(char_cap=10), "floor": []}, None),
    ],
)
def test_capability_refuses_unusable_settings(kwargs: dict[str, Any], error: type[LychdError] | None) -> None:
    if error is None:
        assert GovernedContext(**kwargs).char_cap == 10
        return
    with pytest.raises(error):
        GovernedContext(**kwargs)


def test_a_floor_larger_than_the_cap_is_refused_when_configured() -> None:
    with pytest.raises(ContextBudgetExceededError) as caught:
        GovernedContext(floor=[Block(layer=Layer.IDENTITY, key="big", text="x" * 400)], window=100, output_reserve=0)
    assert caught.value.parts["instructions"] > caught.value.available == 300
