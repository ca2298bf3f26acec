"""Outbound-only memory recall for Pydantic AI: a request-scoped capability.

Before every model request (streamed or not) it resolves its exact recall receipt
again, under the store's current state, into one transient, attributed data message
and adds it to that request's messages only. The run's messages, the caller's prompt,
the instructions and anything a checkpoint keeps never hold recalled bytes. A source
that is missing, changed, superseded or forgotten refuses the request
(``RecallRefusedError``); nothing is searched again. It resolves again right before the
optional pre-request token count and right before sending, so what is counted and sent
is what still resolves now. The receipt's ``max_chars`` is the
full size to reserve: pass ``reserved_governors(governors, recall)`` to ``GovernedContext``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

try:
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        RetryPromptPart,
        ToolReturnPart,
        UserPromptPart,
    )
    from pydantic_ai.models import Model, ModelRequestContext, ModelRequestParameters, StreamedResponse
    from pydantic_ai.models.wrapper import WrapperModel
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.tools import AgentDepsT
    from pydantic_ai.usage import RequestUsage
except ModuleNotFoundError as exc:  # the optional extra is missing: say how to get it
    raise ModuleNotFoundError(
        f"lychd_core.integrations.pydantic_ai_recall needs Pydantic AI ({exc}); "
        "install it with: pip install 'lychd-core[pydantic-ai]'",
        name=exc.name,
    ) from exc

from lychd_core.config import Governors
from lychd_core.errors import BudgetError
from lychd_core.memory.recall import (
    SEMANTIC_GUIDANCE,
    RecallProjection,
    RecallReceipt,
    RecallSource,
    resolve_recall,
)


def reserved_governors(governors: Governors, recall: OutboundRecall[object]) -> Governors:
    """``governors`` with the recall's full size taken from the character cap."""
    cap = governors.char_cap - recall.reserve_chars
    if cap <= 0:
        raise BudgetError(f"the recall reserves {recall.reserve_chars} characters; the cap is {governors.char_cap}")
    return governors.model_copy(update={"char_cap": cap})


def _starts_exchange(message: ModelMessage) -> bool:
    return isinstance(message, ModelRequest) and not any(
        isinstance(part, (ToolReturnPart, RetryPromptPart)) for part in message.parts
    )


@dataclass(kw_only=True)
class OutboundRecall(AbstractCapability[AgentDepsT]):
    """Add one resolved recall to each outbound request, never to the run's messages."""

    receipt: RecallReceipt
    source: Callable[[], RecallSource]
    """Opens the store to read under current authority (called before preparing, counting
    and sending each request)."""
    on_recall: Callable[[RecallProjection], None] | None = None

    @property
    def reserve_chars(self) -> int:
        return self.receipt.max_chars

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds callables: not spec-serializable

    def get_instructions(self) -> list[str] | None:
        # Fixed guidance only; recalled bytes never enter instructions.
        return [SEMANTIC_GUIDANCE] if self.receipt.semantic is not None else None

    async def prepare_model_request(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        projection = resolve_recall(self.receipt, self.source())
        messages = list(request_context.messages)
        at = next((i for i in range(len(messages) - 1, -1, -1) if _starts_exchange(messages[i])), 0)
        data = ModelRequest(parts=[UserPromptPart(content=projection.text)])
        request_context.messages = [*messages[:at], data, *messages[at:]]  # a new list: this request only
        if self.on_recall is not None:
            self.on_recall(projection)
        return request_context

    def get_wrapper_model(self, model: Model) -> Model | None:
        return _ResolvedAgain(model, lambda: resolve_recall(self.receipt, self.source()))


class _ResolvedAgain(WrapperModel):
    """Resolves the recall again right before the pre-request count and before sending:
    a source forgotten or changed since preparation refuses there. A receipt resolves to
    one text or refuses, so what is counted is exactly what is sent."""

    def __init__(self, wrapped: Model, resolve: Callable[[], RecallProjection]) -> None:
        super().__init__(wrapped)
        self._resolve = resolve

    async def count_tokens(
        self, messages: list[ModelMessage], settings: ModelSettings | None, parameters: ModelRequestParameters
    ) -> RequestUsage:
        self._resolve()
        return await super().count_tokens(messages, settings, parameters)

    async def request(
        self, messages: list[ModelMessage], settings: ModelSettings | None, parameters: ModelRequestParameters
    ) -> ModelResponse:
        self._resolve()
        return await super().request(messages, settings, parameters)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        settings: ModelSettings | None,
        parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        self._resolve()
        async with super().request_stream(messages, settings, parameters, run_context) as stream:
            yield stream
