"""OpenAI Agents SDK adapter: a ``call_model_input_filter`` bounding each model call.

Install with ``pip install 'lychd-core[openai-agents]'``. ``GovernedInputFilter`` goes
into ``RunConfig(call_model_input_filter=...)``. It returns a new ``ModelInputData``
(the instructions with the Stable Floor before them, and the bounded input items); the
run's items and any session are never written. Bounding goes through the one outbound
core (``OutboundEngine``): complete exchanges, a ``function_call`` and its
``function_call_output`` kept together by ``call_id``, reasoning items with the calls
they precede, the governors, a typed refusal before the model is called, the egress
gate for the target, labels, outbound memory recall and one span per call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

try:
    from agents.run_config import CallModelData, ModelInputData
except ModuleNotFoundError as exc:  # the optional extra is missing: say how to get it
    raise ModuleNotFoundError(
        f"lychd_core.integrations.openai_agents needs the OpenAI Agents SDK ({exc}); "
        "install it with: pip install 'lychd-core[openai-agents]'",
        name=exc.name,
    ) from exc

from lychd_core.assembly.floor import BLOCK_SEPARATOR, check_floor, render_block
from lychd_core.blocks import Block
from lychd_core.history import compact_json
from lychd_core.integrations.openai_agents_wire import from_wire, is_instruction, item_fields, to_wire, wire_of
from lychd_core.integrations.outbound import LazyWire
from lychd_core.integrations.outbound_engine import OutboundEngine, OutboundOutcome

__all__ = ["GovernedInputFilter", "from_wire", "to_wire"]


class GovernedInputFilter:
    """``RunConfig(call_model_input_filter=GovernedInputFilter(governors=...))``.

    Takes an ``OutboundEngine`` or its settings (``governors``, ``window``, ``target``,
    ``egress``, ``labels``, ``recall``, ...). ``floor``: Stable Floor blocks sent before
    the agent's instructions. ``on_bound`` gets each call's ``OutboundOutcome``."""

    def __init__(
        self,
        engine: OutboundEngine | None = None,
        *,
        floor: Sequence[Block] = (),
        on_bound: Callable[[OutboundOutcome], None] | None = None,
        **settings: Any,
    ) -> None:
        if engine is not None and settings:
            raise TypeError(f"pass an OutboundEngine or its settings, not both (got {', '.join(sorted(settings))})")
        self.engine = engine if engine is not None else OutboundEngine(adapter="openai-agents", **settings)
        self.floor = check_floor(floor)
        self.floor_text = BLOCK_SEPARATOR.join(render_block(block) for block in self.floor)
        self.on_bound = on_bound
        self.engine.check_instructions(len(self.floor_text))  # the floor alone must fit

    def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        items = data.model_data.input
        instructions = self.instructions(data.model_data.instructions)
        lead = 0
        while lead < len(items) and is_instruction(items[lead]):
            lead += 1
        used = len(instructions or "") + sum(len(compact_json(item_fields(i, "item"))) for i in items[:lead])
        history = items[lead:]
        wire = LazyWire(history, wire_of, checked=True)
        outcome = self.engine.govern(wire, instruction_chars=used, blocks=self.floor)
        start, current = outcome.bounded.start, outcome.selection.current_start
        sent = [*items[:lead], *history[start:current]]
        if outcome.recall is not None:  # this call only: never the run's items or a session
            sent.append({"role": "user", "content": outcome.recall.text})
        sent += history[current:]
        if self.on_bound is not None:
            self.on_bound(outcome)
        return ModelInputData(input=sent, instructions=instructions)

    def instructions(self, instructions: str | None) -> str | None:
        """The agent's instructions with the floor text before them."""
        if not self.floor_text:
            return instructions
        return self.floor_text if not instructions else self.floor_text + BLOCK_SEPARATOR + instructions
