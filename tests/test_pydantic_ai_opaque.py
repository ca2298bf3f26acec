"""A part kind a later Pydantic AI adds passes through as an opaque part, reported once."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ThinkingPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from lychd_core import history as history_module
from lychd_core.config import Governors
from lychd_core.history import OpaquePartWarning, compact_json, group_messages, opaque_part_kinds
from lychd_core.integrations import GovernedContext, OutboundBound
from lychd_core.integrations import pydantic_ai_wire as adapter
from lychd_core.integrations.history_engine import select_history

FUTURE = "future-reasoning"


def future_dump(original: Any) -> Any:
    """The wire form a later Pydantic AI would write: thinking parts under a kind we do not know."""

    def dump(messages: Any) -> list[dict[str, Any]]:
        wire: list[dict[str, Any]] = original(messages)
        for message in wire:
            for part in message["parts"]:
                if part["part_kind"] == "thinking":
                    part["part_kind"] = FUTURE
        return wire

    return dump


@pytest.fixture
def fresh_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_module, "_opaque_seen", set())


def past(turns: int) -> list[ModelMessage]:
    messages: list[ModelMessage] = []
    for turn in range(turns):
        messages += [
            ModelRequest(parts=[UserPromptPart(f"turn {turn}")]),
            ModelResponse(parts=[ThinkingPart(f"pondering {turn}"), TextPart(f"answer {turn}")]),
        ]
    return messages


@pytest.mark.usefixtures("fresh_reports")
def test_a_real_agent_runs_over_an_unknown_part_kind_and_it_is_reported_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adapter, "dump", future_dump(adapter.dump))
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        return ModelResponse(parts=[TextPart("done")])

    bounds: list[OutboundBound] = []
    capability: GovernedContext[None] = GovernedContext(governors=Governors(turn_window=3), on_bound=bounds.append)
    agent = Agent(FunctionModel(model), capabilities=[capability])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            result = agent.run_sync("next", message_history=past(8))
            assert result.output == "done"
    reports = [w for w in caught if issubclass(w.category, OpaquePartWarning)]
    assert len(reports) == 1 and FUTURE in str(reports[0].message)
    assert ("response", FUTURE) in opaque_part_kinds()
    # grouped with its message: each kept exchange arrives whole, thinking part included
    for received in seen:
        assert len(received) == 2 * 3 + 1
        assert all(isinstance(m.parts[0], ThinkingPart) for m in received if isinstance(m, ModelResponse))
    assert all(b.kept_groups == 3 and b.omitted_messages == 16 - 6 for b in bounds)


@pytest.mark.usefixtures("fresh_reports")
def test_opaque_parts_are_counted_by_their_json_and_never_split_from_their_message() -> None:
    opaque = {"part_kind": "hologram", "frames": ["a" * 40]}
    history = [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "look"}]},
        {"kind": "response", "parts": [opaque, {"part_kind": "text", "content": "seen"}]},
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "again"}]},
    ]
    with pytest.warns(OpaquePartWarning, match="hologram"):
        groups = group_messages(history)
    assert [(g.start, g.end) for g in groups] == [(0, 2), (2, 3)]
    assert groups[0].chars == len(compact_json(history[0])) + len(compact_json(history[1]))
    budget = groups[0].chars + groups[1].chars
    assert select_history(history, turn_window=5, char_budget=budget, chars_per_token=3).bounded.start == 0
    assert (
        select_history(history, turn_window=5, char_budget=budget - 1, chars_per_token=3).bounded.start == 2
    )  # the group goes whole or not
