"""Pydantic AI wire conversion, floor text and the lazy import of the adapter."""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from lychd_core.blocks import Block, Layer
from lychd_core.errors import BlockError, FloorBlockError, HistoryError, LychdError
from lychd_core.integrations import from_wire, render_floor, to_wire


def tool_then_text(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    kinds = [part.part_kind for part in messages[-1].parts]
    if "user-prompt" in kinds:
        return ModelResponse(parts=[ToolCallPart("lookup", {"q": "x"}), ToolCallPart("lookup", {"q": "y"})])
    if "tool-return" in kinds and sum(1 for m in messages if isinstance(m, ModelResponse)) < 3:
        return ModelResponse(parts=[ToolCallPart("lookup", {"q": "z"})])
    return ModelResponse(parts=[TextPart("done")])


@pytest.fixture(scope="module")
def agent_history() -> list[ModelMessage]:
    agent = Agent(FunctionModel(tool_then_text), instructions="be brief")
    calls = {"n": 0}

    @agent.tool_plain
    def lookup(q: str) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ModelRetry("not yet")
        return f"found {q}"

    history: list[ModelMessage] = []
    for prompt in ("one", "two", "three"):
        history = agent.run_sync(prompt, message_history=history).all_messages()
    return history


def test_round_trip_is_exact_both_ways(agent_history: list[ModelMessage]) -> None:
    wire = to_wire(agent_history)
    assert from_wire(wire) == agent_history
    assert to_wire(from_wire(wire)) == wire
    assert {message["kind"] for message in wire} == {"request", "response"}
    assert all(message["run_id"] for message in wire)
    kinds = {part["part_kind"] for message in wire for part in message["parts"]}
    assert {"user-prompt", "tool-call", "tool-return", "text"} <= kinds


def test_from_wire_does_not_touch_its_input(agent_history: list[ModelMessage]) -> None:
    wire = to_wire(agent_history)
    before = copy.deepcopy(wire)
    messages = from_wire(wire)
    assert wire == before
    messages[0].parts = []
    assert wire == before


def test_to_wire_of_hand_built_messages() -> None:
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("hi")]),
        ModelResponse(parts=[ToolCallPart("t", {"a": 1}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("t", "ok", tool_call_id="c1")]),
    ]
    wire = to_wire(messages)
    assert [m["kind"] for m in wire] == ["request", "response", "request"]
    assert wire[2]["parts"][0]["tool_call_id"] == "c1"
    assert from_wire(wire) == messages


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ({"kind": "request", "parts": []}, "must be a list"),
        ("not a list", "must be a list"),
        ([{"kind": "request", "parts": [{"part_kind": "telepathy"}]}], "not valid Pydantic AI messages"),
        ([{"kind": "request", "parts": [{"part_kind": ""}]}], "unknown request part kind ''"),
        ([{"kind": "response", "parts": [{"part_kind": "user-prompt", "content": "x"}]}], "unknown response part"),
        ([{"kind": "monologue", "parts": []}], "'kind' must be"),
        ([{"kind": "request", "parts": "x"}], "'parts' must be a list"),
        ([{"kind": "request", "parts": [], "run_id": 7}], "run_id"),
        ([3], "expected a message object"),
        ([{"kind": "request", "parts": [{"part_kind": "user-prompt"}]}], "part's 'content' must be"),
        ([{"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": 5}]}], "not valid Pydantic AI"),
    ],
)
# An unknown part kind is first reported once as opaque (tested with the history checks),
# then refused here by Pydantic AI's own validation.
@pytest.mark.filterwarnings("ignore::lychd_core.history.OpaquePartWarning")
def test_from_wire_refuses_bad_input_with_a_typed_error(bad: object, fragment: str) -> None:
    with pytest.raises(HistoryError, match=fragment) as caught:
        from_wire(bad)
    assert isinstance(caught.value, LychdError)


@pytest.mark.parametrize("bad", ["text", b"bytes", 42, None, [1, 2], [{"kind": "request", "parts": []}]])
def test_to_wire_refuses_what_is_not_pydantic_ai_messages(bad: object) -> None:
    with pytest.raises(HistoryError):
        to_wire(bad)  # type: ignore[arg-type]


# --- floor text ---------------------------------------------------------------------


def floor_blocks() -> list[Block]:
    return [
        Block(layer=Layer.IDENTITY, key="persona", text="You are a careful reviewer."),
        Block(layer=Layer.CODEX, key="style", text="Prefer short answers."),
        Block(layer=Layer.KARMA, key='lesson "1"', text="Check units."),
    ]


def test_floor_text_names_layer_and_key_of_every_block_in_order() -> None:
    text = render_floor(floor_blocks())
    assert text == (
        '[lychd block: layer 1 IDENTITY, key "persona"]\nYou are a careful reviewer.\n[end lychd block: key "persona"]'
        '\n\n[lychd block: layer 2 CODEX, key "style"]\nPrefer short answers.\n[end lychd block: key "style"]'
        '\n\n[lychd block: layer 4 KARMA, key "lesson \\"1\\""]\nCheck units.\n[end lychd block: key "lesson \\"1\\""]'
    )
    assert render_floor(floor_blocks()) == text  # deterministic
    assert render_floor([]) == ""


@pytest.mark.parametrize(
    "blocks, fragment",
    [
        ([Block(layer=Layer.STATE, key="s", text="x")], "only layers 1-4"),
        ([Block(layer=Layer.QUERY, key="q", text="x")], "only layers 1-4"),
        ([Block(layer=Layer.KARMA, key="a", text=""), Block(layer=Layer.IDENTITY, key="b", text="")], "ordered"),
        ([Block(layer=Layer.CODEX, key="a", text=""), Block(layer=Layer.CODEX, key="a", text="y")], "twice"),
        (["plain text"], "expected a lychd_core.blocks.Block"),
        ("plain text", "must be a sequence of Blocks"),
        (None, "must be a sequence of Blocks"),
    ],
)
def test_floor_refuses_what_is_not_an_ordered_floor(blocks: list[Block], fragment: str) -> None:
    with pytest.raises(FloorBlockError, match=fragment) as caught:
        render_floor(blocks)
    assert isinstance(caught.value, BlockError)


def test_importing_the_integrations_package_does_not_import_pydantic_ai() -> None:
    code = (
        "import sys, lychd_core.integrations as i; "
        "assert 'pydantic_ai' not in sys.modules, 'eager import'; "
        "i.GovernedContext; assert 'pydantic_ai' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
