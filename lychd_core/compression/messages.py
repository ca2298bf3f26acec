"""History node content as messages and back: compact JSON objects, concatenated."""

from __future__ import annotations

import json
from collections.abc import Sequence

from lychd_core.errors import HistoryError
from lychd_core.history import Message, check_message, check_tool_pairing, compact_json

_DECODER = json.JSONDecoder()


def split_messages(content: str, where: str = "history node", *, check: bool = True) -> list[Message]:
    """The messages whose compact JSON, concatenated, is ``content``; ``HistoryError`` if it is not.

    ``check=False`` skips the message and tool-pairing checks, for content the core built
    and will check again on the way out (a compressor reading a history node).
    """
    messages: list[Message] = []
    position = 0
    while position < len(content):
        try:
            value, position = _DECODER.raw_decode(content, position)
        except json.JSONDecodeError as exc:
            raise HistoryError(f"{where} is not concatenated JSON messages: {exc.msg} at {exc.pos}") from None
        if not check:
            if not isinstance(value, dict):
                raise HistoryError(f"{where}[{len(messages)}] is not a JSON object")
            messages.append(value)
            continue
        messages.append(check_message(value, f"{where}[{len(messages)}]"))
    if check:
        check_tool_pairing(messages, where)
    return messages


def message_texts(content: str, where: str = "history node") -> tuple[str, ...]:
    """Each message's exact text within ``content`` (checked as :func:`split_messages` does).

    The slices are the bytes the node's budget was checked against, so they are kept
    as they are rather than serialized again.
    """
    return parse_messages(content, where)[1]


def join_messages(messages: Sequence[Message]) -> str:
    """Compact JSON of each message, concatenated: the content of a history node."""
    return "".join(compact_json(message) for message in messages)


def parse_messages(
    content: str, where: str, known: Sequence[tuple[Message, str]] = ()
) -> tuple[tuple[Message, ...], tuple[str, ...]]:
    """The checked messages of ``content`` and each one's exact text within it.

    ``known`` holds already checked messages with their compact JSON (a derived node's
    sources', in order, whose tool calls pair): where message ``i`` of ``content`` is
    exactly the text of ``known[i]``, that message is taken as it is instead of parsed and
    checked again. A JSON object ends where its text ends, so this reads exactly what
    parsing would.
    """
    texts: list[str] = []
    messages: list[Message] = []
    position = 0
    same_calls = True  # every parsed message makes and answers exactly the calls of known[i]
    while position < len(content):
        index = len(messages)
        if index < len(known) and content.startswith(known[index][1], position):
            value, text = known[index]
            messages.append(value)
            texts.append(text)
            position += len(text)
            continue
        try:
            value, end = _DECODER.raw_decode(content, position)
        except json.JSONDecodeError as exc:
            raise HistoryError(f"{where} is not concatenated JSON messages: {exc.msg} at {exc.pos}") from None
        messages.append(check_message(value, f"{where}[{len(messages)}]"))
        texts.append(content[position:end])
        position = end
        if same_calls:
            same_calls = index < len(known) and _calls(value) == _calls(known[index][0])
    # Known messages pair (they were checked as groups), so the same calls in the same places pair too.
    if not (same_calls and len(messages) == len(known)):
        check_tool_pairing(messages, where)
    return tuple(messages), tuple(texts)


def _calls(message: Message) -> list[tuple[object, object]]:
    """The tool calls a message makes and answers, in order: all that tool pairing reads."""
    return [(part.get("part_kind"), part["tool_call_id"]) for part in message["parts"] if part.get("tool_call_id")]
