"""Outbound-only memory recall for Pydantic AI: a request-scoped capability.

Before every model request (streamed or not) it resolves its exact recall receipt
again, under the store's current state, into one transient, attributed data message
and adds it to that request's messages only. The run's messages, the caller's prompt,
the instructions and anything a checkpoint keeps never hold recalled bytes. A source
that is missing, changed, superseded or forgotten refuses the request
(``RecallRefusedError``); nothing is searched again. The receipt's ``max_chars`` is the
full size to reserve: pass ``reserved_governors(governors, recall)`` to ``GovernedContext``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

try:
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import ModelMessage, ModelRequest, RetryPromptPart, ToolReturnPart, UserPromptPart
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.tools import AgentDepsT
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
    """Opens the store to read under current authority (called once per request)."""
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
