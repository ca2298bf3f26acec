"""OpenAI Agents SDK input items <-> the history wire form, losslessly.

One input item becomes one wire message holding the item whole (``part["item"]``; the
part's own ``content`` stays empty, so the item is counted once), so
``from_wire(to_wire(items)) == items``; the part kind says how it groups: a user message
(``user-prompt``) opens an exchange; system and developer messages are instructions
(``system-prompt``); assistant messages are responses (``text``); ``function_call`` (and
any other ``*_call`` with a ``call_id``) a ``tool-call`` and ``function_call_output`` (any
``*_call_output``) a ``tool-return`` under the same ``call_id``, so a call and its output
are never split; ``reasoning`` a ``thinking`` response, kept in the exchange with the
calls it precedes. Items of another type pass as opaque responses of their exchange.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from lychd_core.errors import HistoryError
from lychd_core.history import Message, check_message, check_messages

_REQUEST_ROLES = {"user": "user-prompt", "system": "system-prompt", "developer": "system-prompt"}
INSTRUCTION_ROLES = frozenset({"system", "developer"})


def item_fields(item: object, where: str) -> Mapping[str, Any]:
    """The item as a mapping (the SDK's items are dicts; a pydantic item is dumped)."""
    if isinstance(item, Mapping):
        return item
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        fields = dump(exclude_unset=True)
        if isinstance(fields, dict):
            return fields
    raise HistoryError(f"{where}: expected an OpenAI Agents input item (a dict), got {type(item).__name__}")


def is_instruction(item: object) -> bool:
    """Whether ``item`` is a system or developer message (sent as instructions, never trimmed)."""
    fields = item if isinstance(item, Mapping) else getattr(item, "__dict__", {})
    return fields.get("role") in INSTRUCTION_ROLES and fields.get("type", "message") == "message"


def _part(fields: Mapping[str, Any], where: str) -> tuple[str, dict[str, Any]]:
    kind = fields.get("type")
    role = fields.get("role")
    if kind in (None, "message") and role is not None:
        if role in _REQUEST_ROLES:
            return "request", {"part_kind": _REQUEST_ROLES[role], "content": ""}
        if role == "assistant":
            return "response", {"part_kind": "text", "content": ""}
        raise HistoryError(f"{where}: unknown message role {role!r} (known: assistant, developer, system, user)")
    if not isinstance(kind, str) or not kind:
        raise HistoryError(f"{where}: an input item needs a 'type' or a 'role', got keys {sorted(fields)[:6]}")
    call_id = fields.get("call_id")
    if call_id is not None:
        if not isinstance(call_id, str) or not call_id:
            raise HistoryError(f"{where}: 'call_id' must be a non-empty string, got {call_id!r}")
        if kind.endswith("_output"):
            return "request", {"part_kind": "tool-return", "tool_call_id": call_id}
        return "response", {"part_kind": "tool-call", "tool_call_id": call_id}
    if kind == "reasoning":
        return "response", {"part_kind": "thinking", "content": ""}
    return "response", {"part_kind": "builtin-tool-call"}


def wire_of(item: object, where: str = "item") -> Message:
    """One item's wire form (the item itself inside, shared, not copied), validated."""
    fields = item_fields(item, where)
    kind, part = _part(fields, where)
    part["item"] = fields
    return check_message({"kind": kind, "parts": [part]}, where)


def to_wire(items: Sequence[object]) -> list[Message]:
    """Input items in the history wire form, validated; each item is copied whole."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
        raise HistoryError(f"items must be a list of OpenAI Agents input items, got {type(items).__name__}")
    return [copy.deepcopy(wire_of(item, f"items[{index}]")) for index, item in enumerate(items)]


def from_wire(wire: object) -> list[dict[str, Any]]:
    """Wire-form messages back to input items; ``from_wire(to_wire(items)) == items``."""
    items = []
    for index, message in enumerate(check_messages(wire, "wire")):
        parts = message["parts"]
        if len(parts) != 1 or not isinstance(parts[0].get("item"), dict):
            raise HistoryError(f"wire[{index}]: an OpenAI Agents item is one part holding the item")
        items.append(copy.deepcopy(parts[0]["item"]))
    return items
