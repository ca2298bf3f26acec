"""The adapter converts each settled message once and reuses it across requests.

A capability reused request after request (its memo warm) must bound exactly as a fresh
one does, whatever happens to the history between requests: new turns, a part's field
reassigned, a part added, a message replaced. The memo forgets collected messages.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai import RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestContext, ModelRequestParameters
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.usage import RunUsage

from lychd_core.config import Governors
from lychd_core.integrations import GovernedContext, OutboundBound
from lychd_core.integrations.wire_memo import WireMemo, object_shape

MODEL = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("ok")]))


def send(capability: GovernedContext[None], messages: list[ModelMessage]) -> tuple[OutboundBound, list[ModelMessage]]:
    """One request through ``before_model_request``: what it recorded and what it kept."""
    bounds: list[OutboundBound] = []
    capability.on_bound = bounds.append
    ctx: RunContext[None] = RunContext(deps=None, model=MODEL, usage=RunUsage(), run_step=1)
    request = ModelRequestContext(
        model=MODEL, messages=messages, model_settings=None, model_request_parameters=ModelRequestParameters()
    )
    kept = asyncio.run(capability.before_model_request(ctx, request)).messages
    assert len(bounds) == 1
    return bounds[0], list(kept)


def turn(number: int, tools: bool) -> list[ModelMessage]:
    text = f"turn {number} " + "x" * (number % 7) * 9
    if not tools:
        return [ModelRequest(parts=[UserPromptPart(text)]), ModelResponse(parts=[TextPart(f"answer {text}")])]
    call = f"call-{number}"
    return [
        ModelRequest(parts=[UserPromptPart(text)]),
        ModelResponse(parts=[ToolCallPart("lookup", {"q": text}, call)]),
        ModelRequest(parts=[ToolReturnPart("lookup", "result " * (number % 5), call)]),
        ModelResponse(parts=[TextPart(f"answer {number}")]),
    ]


def edit(history: list[ModelMessage], op: str, index: int, size: int) -> None:
    """Change the history between requests the ways a caller may: never in a nested container."""
    message = history[index % len(history)]
    part: Any = message.parts[-1]
    if op == "reassign" and hasattr(part, "content"):
        part.content = "edited " * size
    elif op == "add-part":
        extra: Any = UserPromptPart("added " * size) if isinstance(message, ModelRequest) else TextPart("more " * size)
        message.parts.append(extra)  # type: ignore[attr-defined]  # parts is a list at run time
    elif op == "replace" and isinstance(message, ModelResponse):
        history[index % len(history)] = dataclasses.replace(message, parts=[TextPart("replaced " * size)])
    elif op == "run-id":
        message.run_id = f"run-{size}"


steps = st.lists(
    st.tuples(
        st.sampled_from(["new-turn", "reassign", "add-part", "replace", "run-id"]),
        st.integers(min_value=0, max_value=400),
        st.integers(min_value=0, max_value=40),
        st.booleans(),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=12), steps, st.integers(min_value=1, max_value=6))
def test_a_reused_capability_bounds_as_a_fresh_one_whatever_changed(
    turns: int, changes: list[tuple[str, int, int, bool]], turn_window: int
) -> None:
    governors = Governors(turn_window=turn_window, char_cap=3_000, chars_per_token=3)
    reused: GovernedContext[None] = GovernedContext(governors=governors)
    history = [message for number in range(turns) for message in turn(number, number % 2 == 0)]
    for op, index, size, tools in changes:
        if op == "new-turn":
            history += turn(len(history), tools)
        else:
            edit(history, op, index, size)
        request = [*history, ModelRequest(parts=[UserPromptPart("next question")])]
        try:
            expected = send(GovernedContext(governors=governors), request)
        except Exception as refused:  # the fresh one's refusal must be the reused one's
            try:
                send(reused, request)
            except type(refused) as same:
                assert str(same) == str(refused)
            else:
                raise AssertionError(f"the reused capability did not refuse: {refused}") from None
            continue
        bound, kept = send(reused, request)
        assert bound == expected[0]
        assert all(a is b for a, b in zip(kept, expected[1], strict=True))


def test_a_settled_message_edited_between_requests_is_counted_anew() -> None:
    governors = Governors(turn_window=50, char_cap=100_000, chars_per_token=3)
    capability: GovernedContext[None] = GovernedContext(governors=governors)
    history = [message for number in range(6) for message in turn(number, True)]
    prompt = ModelRequest(parts=[UserPromptPart("next")])
    before, _ = send(capability, [*history, prompt])
    part: Any = history[4].parts[0]
    part.content = part.content + "y" * 1_000
    after, _ = send(capability, [*history, prompt])
    assert after.history_chars == before.history_chars + 1_000
    assert after == send(GovernedContext(governors=governors), [*history, prompt])[0]


def test_only_the_new_tail_is_converted_on_the_next_request(monkeypatch: Any) -> None:
    from lychd_core.integrations import pydantic_ai_wire as adapter

    converted: list[int] = []
    original = adapter.dump

    def counting(messages: Any) -> Any:
        converted.append(len(messages))
        return original(messages)

    monkeypatch.setattr(adapter, "dump", counting)
    capability: GovernedContext[None] = GovernedContext(governors=Governors(turn_window=5))
    history = [message for number in range(40) for message in turn(number, True)]
    send(capability, [*history, ModelRequest(parts=[UserPromptPart("first")])])
    assert sum(converted) >= 21  # five settled turns of four messages and the prompt
    converted.clear()
    history += turn(40, True)
    send(capability, [*history, ModelRequest(parts=[UserPromptPart("second")])])
    assert sum(converted) == 5  # the new turn and the new prompt, nothing settled again


def test_the_memo_forgets_collected_messages_and_holds_at_most_its_limit() -> None:
    capability: GovernedContext[None] = GovernedContext(governors=Governors(turn_window=3))
    history = [message for number in range(10) for message in turn(number, False)]
    send(capability, [*history, ModelRequest(parts=[UserPromptPart("next")])])
    assert len(capability._memo) > 0
    del history
    gc.collect()
    assert len(capability._memo) == 0

    memo: WireMemo[ModelMessage] = WireMemo(limit=2)
    messages = turn(1, True)
    for message in messages:
        memo.put(message, {"kind": message.kind, "parts": []})
    assert len(memo) == 2
    assert memo.get(messages[0]) is None and memo.get(messages[-1]) is not None


def test_shape_sees_reassigned_fields_and_parts_but_refuses_objects_without_a_dict() -> None:
    message = ModelRequest(parts=[UserPromptPart("a")])
    shape = object_shape(message)
    message.parts[0].content = "b"  # type: ignore[union-attr]
    assert object_shape(message) != shape
    assert object_shape(("no", "dict")) is None
