"""LangChain v1 / LangGraph adapter: bound what each model request sees, outbound-only.

Install with ``pip install 'lychd-core[langchain]'``. ``GovernedMiddleware`` is an
``AgentMiddleware`` for ``langchain.agents.create_agent``: its ``wrap_model_call``
replaces only the model request's messages (``request.override``), so the graph state
keeps every message. ``governed_pre_model_hook`` does the same for LangGraph's prebuilt
agent by returning ``llm_input_messages``. Both go through the one outbound core
(``OutboundEngine``): complete groups, tool calls and their ``ToolMessage`` never split,
the governors, a typed refusal before the model is called, the egress gate for the
target, labels, outbound memory recall and one span per request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from lychd_core.integrations.langchain_wire import from_wire, measured_wire_of, to_wire

try:
    from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
    from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
except ModuleNotFoundError as exc:  # the optional extra is missing: say how to get it
    raise ModuleNotFoundError(
        f"lychd_core.integrations.langchain needs LangChain 1.x ({exc}); "
        "install it with: pip install 'lychd-core[langchain]'",
        name=exc.name,
    ) from exc

from lychd_core.assembly.floor import BLOCK_SEPARATOR, check_floor, render_block
from lychd_core.blocks import Block
from lychd_core.history import compact_json
from lychd_core.integrations.outbound import LazyWire
from lychd_core.integrations.outbound_engine import OutboundEngine, OutboundOutcome
from lychd_core.integrations.wire_memo import WireMemo

__all__ = ["GovernedMessages", "GovernedMiddleware", "from_wire", "governed_pre_model_hook", "to_wire"]


def _chars(content: object) -> int:
    return len(content) if isinstance(content, str) else len(compact_json(content))


class GovernedMessages:
    """The LangChain translation layer over one ``OutboundEngine``: which messages one
    request sends. Leading ``SystemMessage``s are instructions (always sent, counted);
    the rest is history, bounded by the engine. ``floor``: Stable Floor blocks sent
    first in the system message. ``on_bound`` gets each request's ``OutboundOutcome``."""

    def __init__(
        self,
        engine: OutboundEngine | None = None,
        *,
        floor: Sequence[Block] = (),
        on_bound: Callable[[OutboundOutcome], None] | None = None,
        adapter: str = "langchain",
        **settings: Any,
    ) -> None:
        if engine is not None and settings:
            raise TypeError(f"pass an OutboundEngine or its settings, not both (got {', '.join(sorted(settings))})")
        self.engine = engine if engine is not None else OutboundEngine(adapter=adapter, **settings)
        self.floor = check_floor(floor)
        self.floor_text = BLOCK_SEPARATOR.join(render_block(block) for block in self.floor)
        self.on_bound = on_bound
        self._memo: WireMemo[BaseMessage] = WireMemo()
        self.engine.check_instructions(len(self.floor_text))  # the floor alone must fit

    def messages(self, messages: Sequence[BaseMessage], system: SystemMessage | None = None) -> list[BaseMessage]:
        """The messages to send (leading system messages, recall, the kept suffix), or raise."""
        lead = 0
        while lead < len(messages) and isinstance(messages[lead], SystemMessage):
            lead += 1
        instructions = len(self.floor_text) + sum(_chars(m.content) for m in messages[:lead])
        if system is not None:
            instructions += _chars(system.content)
        history = messages[lead:]
        wire = LazyWire(history, measured_wire_of, memo=self._memo, checked=True)
        outcome = self.engine.govern(wire, instruction_chars=instructions, blocks=self.floor)
        start, current = outcome.bounded.start, outcome.selection.current_start
        sent = [*messages[:lead], *history[start:current]]
        if outcome.recall is not None:
            sent.append(HumanMessage(content=outcome.recall.text))  # this request only, never the state
        sent += history[current:]
        if self.on_bound is not None:
            self.on_bound(outcome)
        return sent

    def system_message(self, system: SystemMessage | None) -> SystemMessage | None:
        """``system`` with the floor text before it (the floor comes first)."""
        if not self.floor_text:
            return system
        if system is None:
            return SystemMessage(content=self.floor_text)
        if isinstance(system.content, str):
            return system.model_copy(update={"content": self.floor_text + BLOCK_SEPARATOR + system.content})
        return system.model_copy(update={"content": [{"type": "text", "text": self.floor_text}, *system.content]})


class GovernedMiddleware(AgentMiddleware):
    """``create_agent(..., middleware=[GovernedMiddleware(governors=...)])``: every model
    call sees the bounded messages; the agent's state keeps all of them. Takes an
    ``OutboundEngine`` or its settings (``governors``, ``window``, ``target``, ``egress``,
    ``labels``, ``recall``, ...)."""

    def __init__(
        self,
        engine: OutboundEngine | None = None,
        *,
        floor: Sequence[Block] = (),
        on_bound: Callable[[OutboundOutcome], None] | None = None,
        **settings: Any,
    ) -> None:
        super().__init__()
        self.governed = GovernedMessages(engine, floor=floor, on_bound=on_bound, **settings)

    def _bounded(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        system = request.system_message
        messages = self.governed.messages(request.messages, system)
        return request.override(messages=messages, system_message=self.governed.system_message(system))  # type: ignore[arg-type]

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> Any:
        return handler(self._bounded(request))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]
    ) -> Any:
        return await handler(self._bounded(request))


def governed_pre_model_hook(
    engine: OutboundEngine | None = None,
    *,
    floor: Sequence[Block] = (),
    on_bound: Callable[[OutboundOutcome], None] | None = None,
    **settings: Any,
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``pre_model_hook`` for ``langgraph.prebuilt.create_react_agent``: returns
    ``{"llm_input_messages": ...}``, so the state's ``messages`` stay whole. The floor,
    if any, is sent first as a system message."""
    governed = GovernedMessages(engine, floor=floor, on_bound=on_bound, adapter="langgraph", **settings)

    def pre_model_hook(state: dict[str, Any]) -> dict[str, Any]:
        messages = governed.messages(state["messages"])
        floor_message = governed.system_message(None)
        return {"llm_input_messages": messages if floor_message is None else [floor_message, *messages]}

    return pre_model_hook
