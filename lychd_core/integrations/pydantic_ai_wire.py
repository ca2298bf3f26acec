"""Pydantic AI messages in the JSON wire form lychd history uses, and how a model renders them.

Imported by ``lychd_core.integrations.pydantic_ai``, which says how to install Pydantic AI
when it is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic
import pydantic_core
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ModelResponse

from lychd_core.errors import HistoryError
from lychd_core.history import Message, check_message, check_messages, message_chars
from lychd_core.integrations.outbound import measured


def dump(messages: Sequence[ModelMessage]) -> list[Message]:
    for index, message in enumerate(messages):
        if not isinstance(message, (ModelRequest, ModelResponse)):
            raise HistoryError(
                f"messages[{index}]: expected a pydantic_ai ModelRequest or ModelResponse, got {type(message).__name__}"
            )
    try:
        wire: list[Message] = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
    except (pydantic_core.PydanticSerializationError, TypeError, ValueError, AttributeError) as exc:
        raise HistoryError(
            f"messages could not be written in the Pydantic AI wire form: {exc}; "
            "expected pydantic_ai ModelRequest/ModelResponse objects"
        ) from None
    return wire


def to_wire(messages: Sequence[ModelMessage]) -> list[Message]:
    """Pydantic AI messages in the JSON wire form lychd history uses, validated."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise HistoryError(f"messages must be a sequence of Pydantic AI messages, got {type(messages).__name__}")
    return check_messages(dump(messages), "messages")


def from_wire(wire: object) -> list[ModelMessage]:
    """Wire-form messages back to Pydantic AI messages; ``from_wire(to_wire(m)) == m``."""
    checked = check_messages(wire, "wire")
    try:
        return ModelMessagesTypeAdapter.validate_python(checked)
    except pydantic.ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(loc) for loc in error['loc'])}: {error['msg']}" for error in exc.errors()[:5]
        )
        raise HistoryError(
            f"wire messages are not valid Pydantic AI messages ({exc.error_count()} problems): {problems}"
        ) from None


def wire_of(message: ModelMessage) -> Message:
    return check_message(dump([message])[0], "message")


def wires_of(messages: Sequence[ModelMessage]) -> list[Message]:
    """Several messages in one serializer call; on failure, one by one, so the error
    names the message that failed."""
    try:
        dumped = dump(messages)
    except HistoryError:
        return [wire_of(message) for message in messages]
    return [check_message(message, "message") for message in dumped]


# Parts a model sends as recorded. Others (retries fenced as prompts, instruction deltas,
# context-id system prompts, native tool search, opaque kinds) may grow when rendered.
SENT_AS_RECORDED = frozenset({"user-prompt", "tool-call", "tool-return", "text", "thinking", "file"})


def rendering_may_add(wire: Sequence[Message], start: int, model: Any) -> bool:
    """Whether the model's rendering of ``wire[start:]`` may hold more than its wire form:
    only then is it measured (one ``prepare_messages`` call besides Pydantic AI's own)."""
    if getattr(getattr(model, "profile", None), "may_tokenize_special_tokens_in_content", False):
        return True  # a zero-width joiner may go into any special token
    return any(part.get("part_kind") not in SENT_AS_RECORDED for message in wire[start:] for part in message["parts"])


def measured_chars(messages: Sequence[ModelMessage]) -> int:
    """Characters of messages as rendered for the model, counted like history (see ``outbound``)."""
    return sum(message_chars(measured(message)) for message in dump(messages))
