"""LangChain messages <-> the history wire form, losslessly.

Each message becomes one wire message: ``SystemMessage`` a request with a
``system-prompt`` part, ``HumanMessage`` a ``user-prompt`` part, ``AIMessage`` a response
with a ``text`` part (when it has content) and one ``tool-call`` part per tool call,
``ToolMessage`` a request with a ``tool-return`` part (a ``retry-prompt`` when its status
is ``error``) carrying its ``tool_call_id``. Content passes as it is: a list of
multimodal parts is opaque to lychd (counted by its JSON, never split; for a system or
AI message it goes in the part's ``blocks``). Every other field
(ids, names, metadata, artifacts) travels in ``langchain``, so
``from_wire(to_wire(m)) == m``. The measured form used for bounding leaves
``langchain`` out: metadata is a record, not what a provider is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
except ModuleNotFoundError as exc:  # the optional extra is missing: say how to get it
    raise ModuleNotFoundError(
        f"lychd_core.integrations.langchain needs LangChain ({exc}); "
        "install it with: pip install 'lychd-core[langchain]'",
        name=exc.name,
    ) from exc

from lychd_core.errors import HistoryError
from lychd_core.history import Message, check_message, check_messages

RECORD = "langchain"
"""The wire field holding every other field of the message (not measured)."""
_IN_PARTS = frozenset({"type", "content", "tool_calls", "tool_call_id", "status"})
KNOWN = "SystemMessage, HumanMessage, AIMessage, ToolMessage"


def _record(message: BaseMessage) -> dict[str, Any]:
    return {name: value for name, value in message.model_dump().items() if name not in _IN_PARTS}


def _text_part(part_kind: str, content: str | list[Any]) -> dict[str, Any]:
    """A text-only part kind; a list of content blocks goes in ``blocks`` (opaque), its text empty."""
    if isinstance(content, str):
        return {"part_kind": part_kind, "content": content}
    return {"part_kind": part_kind, "content": "", "blocks": content}


def _content(part: dict[str, Any]) -> Any:
    return part["blocks"] if "blocks" in part else part["content"]


def _parts(message: BaseMessage, where: str) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(message, SystemMessage):
        return "request", [_text_part("system-prompt", message.content)]
    if isinstance(message, HumanMessage):
        return "request", [{"part_kind": "user-prompt", "content": message.content}]
    if isinstance(message, ToolMessage):
        kind = "retry-prompt" if message.status == "error" else "tool-return"
        return "request", [{"part_kind": kind, "content": message.content, "tool_call_id": message.tool_call_id}]
    if isinstance(message, AIMessage):
        parts: list[dict[str, Any]] = []
        if message.content:
            parts.append(_text_part("text", message.content))
        for call in message.tool_calls:
            part: dict[str, Any] = {"part_kind": "tool-call", "tool_name": call["name"], "args": call["args"]}
            if call.get("id"):
                part["tool_call_id"] = call["id"]
            parts.append(part)
        return "response", parts
    raise HistoryError(
        f"{where}: a LangChain message of type {type(message).__name__} has no wire form (known: {KNOWN})"
    )


def measured_wire_of(message: BaseMessage, where: str = "message") -> Message:
    """The wire form one message is counted by: its parts, without the ``langchain`` record."""
    if not isinstance(message, BaseMessage):
        raise HistoryError(f"{where}: expected a LangChain message, got {type(message).__name__}")
    kind, parts = _parts(message, where)
    return check_message({"kind": kind, "parts": parts}, where)


def to_wire(messages: Sequence[BaseMessage]) -> list[Message]:
    """LangChain messages in the history wire form, validated, every field kept."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise HistoryError(f"messages must be a sequence of LangChain messages, got {type(messages).__name__}")
    wire = []
    for index, message in enumerate(messages):
        form = measured_wire_of(message, f"messages[{index}]")
        form[RECORD] = _record(message)
        wire.append(form)
    return wire


def from_wire(wire: object) -> list[BaseMessage]:
    """Wire-form messages back to LangChain messages; ``from_wire(to_wire(m)) == m``."""
    return [_message_of(message, f"wire[{index}]") for index, message in enumerate(check_messages(wire, "wire"))]


def _message_of(message: Message, where: str) -> BaseMessage:
    record = message.get(RECORD) or {}
    if not isinstance(record, dict):
        raise HistoryError(f"{where}: {RECORD!r} must be an object of message fields")
    parts = message["parts"]
    if message["kind"] == "response":
        text = [_content(p) for p in parts if p["part_kind"] == "text"]
        calls = [
            {
                "name": p.get("tool_name", ""),
                "args": p.get("args", {}),
                "id": p.get("tool_call_id"),
                "type": "tool_call",
            }
            for p in parts
            if p["part_kind"] == "tool-call"
        ]
        return AIMessage(content=text[0] if text else "", tool_calls=calls, **record)
    if len(parts) != 1:
        raise HistoryError(f"{where}: a LangChain request message has exactly one part, got {len(parts)}")
    part = parts[0]
    kind = part["part_kind"]
    if kind == "system-prompt":
        return SystemMessage(content=_content(part), **record)
    if kind == "user-prompt":
        return HumanMessage(content=part["content"], **record)
    if kind in ("tool-return", "retry-prompt"):
        status = "error" if kind == "retry-prompt" else "success"
        return ToolMessage(content=part["content"], tool_call_id=part.get("tool_call_id", ""), status=status, **record)
    raise HistoryError(f"{where}: part kind {kind!r} has no LangChain message (known: {KNOWN})")
