"""Adapters to agent frameworks, over one framework-neutral outbound core (``OutboundEngine``).

The Pydantic AI adapter needs the optional extra (``pip install 'lychd-core[pydantic-ai]'``);
its names are imported on first use, so importing this package never imports Pydantic AI.
The LangChain (``integrations.langchain``) and OpenAI Agents SDK
(``integrations.openai_agents``) adapters are imported by their module names.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lychd_core.assembly.floor import render_floor
from lychd_core.errors import FloorBlockError
from lychd_core.integrations.egress import CallLabels
from lychd_core.integrations.outbound import bound_outbound, history_char_budget, outbound_char_cap
from lychd_core.integrations.outbound_engine import OutboundEngine, OutboundOutcome, Recall

if TYPE_CHECKING:
    from lychd_core.errors import RequestInputLimitError
    from lychd_core.integrations.pydantic_ai import (
        GovernedContext,
        OutboundBound,
        from_wire,
        request_usage_limits,
        to_wire,
    )

_PYDANTIC_AI_NAMES = frozenset(
    {"GovernedContext", "OutboundBound", "RequestInputLimitError", "from_wire", "request_usage_limits", "to_wire"}
)

__all__ = [
    "CallLabels",
    "FloorBlockError",
    "GovernedContext",
    "OutboundBound",
    "OutboundEngine",
    "OutboundOutcome",
    "Recall",
    "RequestInputLimitError",
    "bound_outbound",
    "from_wire",
    "history_char_budget",
    "outbound_char_cap",
    "render_floor",
    "request_usage_limits",
    "to_wire",
]


def __getattr__(name: str) -> Any:
    if name in _PYDANTIC_AI_NAMES:
        return getattr(importlib.import_module("lychd_core.integrations.pydantic_ai"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
