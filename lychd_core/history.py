"""Messages in the Pydantic AI JSON wire form, and their complete groups.

History needs no Pydantic AI import: a message is a JSON object with ``kind``
(``request`` or ``response``), ``parts`` (each with ``part_kind``) and an optional
``run_id``. Groups are found scanning backward from the newest message, so bounding
a long history costs what is kept, not what exists. A part kind this module does not
know (a later Pydantic AI's) passes through as an opaque part, reported once.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import orjson

from lychd_core.digests import compact_json_text as _encode
from lychd_core.errors import HistoryError

Message = dict[str, Any]

REQUEST_PART_KINDS = frozenset(
    {
        "system-prompt",
        "user-prompt",
        "tool-return",
        "retry-prompt",
        "retry-feedback",
        "instruction",
        "instruction-baseline",
        "instruction-delta",
        "instruction-digest",
        "capability-load-delta",
        "model-settings-delta",
        "tool-availability-delta",
        "builtin-tool-return",
        "speech",
        "compaction",
    }
)
RESPONSE_PART_KINDS = frozenset(
    {"text", "tool-call", "thinking", "file", "builtin-tool-call", "builtin-tool-return", "compaction", "speech"}
)
CONTINUATION_PART_KINDS = frozenset({"tool-return", "retry-prompt", "retry-feedback"})
KNOWN_PART_KINDS = REQUEST_PART_KINDS | RESPONSE_PART_KINDS
# Parts whose content is text (a user prompt may also be a list of multimodal items); a tool
# return's content is any JSON, so it is not listed.
_CONTENT_TYPES: dict[str, type | tuple[type, ...]] = {
    "system-prompt": str,
    "user-prompt": (str, list),
    "text": str,
    "thinking": str,
}
_CONTENT_NAMES = {
    "system-prompt": "a string",
    "user-prompt": "a string or a list",
    "text": "a string",
    "thinking": "a string",
}


class OpaquePartWarning(UserWarning):
    """A message part of a kind this lychd-core does not know (a later Pydantic AI's)."""


_opaque_seen: set[tuple[str, str]] = set()


def _report_opaque(kind: str, part_kind: str) -> None:
    """Pass an unknown part kind through as an opaque part (counted by its JSON, kept with
    its message), reporting each (message kind, part kind) once per process."""
    if (kind, part_kind) not in _opaque_seen:
        _opaque_seen.add((kind, part_kind))
        warnings.warn(
            f"{kind} part kind {part_kind!r} is not known to lychd-core: it passes through as an opaque part, "
            "counted by its JSON and kept with its message (reported once)",
            OpaquePartWarning,
            stacklevel=4,
        )


def opaque_part_kinds() -> frozenset[tuple[str, str]]:
    """Every (message kind, part kind) passed through as opaque so far in this process."""
    return frozenset(_opaque_seen)


SPLICE_MIN_CHARS = 1024
"""A part's ``content`` string at least this long makes the message take the splice
path: each long string of its parts is written by orjson, which gives exactly the
standard library's literal (every code point checked, see tests) several times faster
(a 20 KB tool return with quotes and newlines: 14 us against 38 us; without them 2 us),
and the rest of the message by the standard encoder, so floats, keys and refusals stay
the standard library's. A string orjson refuses (a lone surrogate) is left to the encoder."""
_MARK = "\ue000lychd-splice:{}\ue000"


def compact_json(value: Any) -> str:
    """Compact, key-sorted JSON; the unit of message cost (characters)."""
    try:
        if type(value) is dict:
            parts = value.get("parts")
            if type(parts) is list:  # a message: only a long part body takes the splice path
                for part in parts:
                    if type(part) is dict:
                        body = part.get("content")
                        if type(body) is str and len(body) >= SPLICE_MIN_CHARS:
                            return _spliced(value, parts)
        return _encode(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise HistoryError(f"message is not plain JSON: {exc}") from None


def _spliced(message: dict[str, Any], parts: list[Any]) -> str:
    """``message``'s compact JSON, its parts' long strings written by orjson: the encoder
    writes a copy holding placeholders instead (the caller's message is never edited)."""
    literals: list[str] = []
    marked_parts = list(parts)
    for index, part in enumerate(parts):
        if type(part) is dict:
            marked_parts[index] = {name: _marked(item, literals) for name, item in part.items()}
    if literals:
        spliced = _splice(_encode({**message, "parts": marked_parts}), literals)
        if spliced is not None:
            return spliced
    return _encode(message)


def _marked(item: object, literals: list[str]) -> object:
    if type(item) is str and len(item) >= SPLICE_MIN_CHARS:
        try:
            literals.append(orjson.dumps(item).decode("utf-8"))
        except orjson.JSONEncodeError:
            return item  # a lone surrogate: the encoder writes it
        return _MARK.format(len(literals) - 1)
    return item


def _splice(encoded: str, literals: list[str]) -> str | None:
    """``encoded`` with each placeholder (quoted) replaced by its literal; ``None`` unless
    every placeholder occurs exactly once (then that occurrence is the one written for it)."""
    spots = []
    for index, literal in enumerate(literals):
        token = f'"{_MARK.format(index)}"'
        at = encoded.find(token)
        if at < 0 or encoded.find(token, at + 1) >= 0:
            return None
        spots.append((at, len(token), literal))
    spots.sort()
    pieces: list[str] = []
    cursor = 0
    for at, width, literal in spots:
        pieces += (encoded[cursor:at], literal)
        cursor = at + width
    pieces.append(encoded[cursor:])
    return "".join(pieces)


def message_chars(message: Mapping[str, Any]) -> int:
    return len(compact_json(message))


def check_message(message: object, where: str, index: int | None = None) -> Message:
    """Validate one wire-form message; return it (not copied). Errors name it ``where``, or
    ``where[index]`` when ``index`` is given (that name is then made only for an error)."""
    if not isinstance(message, dict):
        raise HistoryError(f"{_named(where, index)}: expected a message object, got {type(message).__name__}")
    kind = message.get("kind")
    if kind == "request":
        allowed = REQUEST_PART_KINDS
    elif kind == "response":
        allowed = RESPONSE_PART_KINDS
    else:
        raise HistoryError(f"{_named(where, index)}: 'kind' must be 'request' or 'response', got {kind!r}")
    parts = message.get("parts")
    if not isinstance(parts, list):
        raise HistoryError(f"{_named(where, index)}: 'parts' must be a list")
    bad_call = -1  # one pass over the parts; a bad call id is reported after every part kind, as before
    for at, part in enumerate(parts):
        part_kind = part.get("part_kind") if isinstance(part, dict) else None
        if not isinstance(part_kind, str) or part_kind not in allowed:  # str first: a list is unhashable
            if not isinstance(part_kind, str) or not part_kind or part_kind in KNOWN_PART_KINDS:
                raise HistoryError(
                    f"{_named(where, index)}.parts[{at}]: unknown {kind} part kind {part_kind!r} "
                    f"(known: {', '.join(sorted(allowed))})"
                )
            _report_opaque(kind, part_kind)
        if part_kind in _CONTENT_TYPES and not isinstance(part.get("content"), _CONTENT_TYPES[part_kind]):
            raise HistoryError(
                f"{_named(where, index)}.parts[{at}]: a {part_kind} part's 'content' must be "
                f"{_CONTENT_NAMES[part_kind]}, got {type(part.get('content')).__name__}"
            )
        if bad_call < 0:
            call_id = part.get("tool_call_id")
            if call_id is not None and not isinstance(call_id, str):
                bad_call = at
    run_id = message.get("run_id")
    if run_id is not None and not isinstance(run_id, str):
        raise HistoryError(f"{_named(where, index)}: 'run_id' must be a string or null")
    if bad_call >= 0:
        call_id = parts[bad_call]["tool_call_id"]
        raise HistoryError(
            f"{_named(where, index)}.parts[{bad_call}]: 'tool_call_id' must be a string, got {type(call_id).__name__}"
        )
    return message


def _named(where: str, index: int | None) -> str:
    return where if index is None else f"{where}[{index}]"


def check_messages(value: object, what: str = "history") -> list[Message]:
    """Validate a list of wire-form messages."""
    if not isinstance(value, list):
        raise HistoryError(f"{what} must be a list of messages, got {type(value).__name__}")
    return [check_message(item, what, index) for index, item in enumerate(value)]


def starts_group(messages: Sequence[Message], index: int, checked: bool = False) -> bool:
    """Whether ``messages[index]`` opens a new complete group.

    A request carrying tool returns or retries never opens a group, even under a new
    ``run_id`` (a run resumed with deferred tool results), so a tool return stays with
    its call. Otherwise groups follow ``run_id`` where present, and without one only a
    plain request opens a group.
    """
    if index == 0:
        return True
    message = messages[index]
    request: bool = message["kind"] == "request"
    if request and _continues(message):
        return False
    run_id = message.get("run_id")
    if run_id is not None:  # the older neighbour is read here, so it is checked here (unless already)
        older = messages[index - 1] if checked else check_message(messages[index - 1], "history", index - 1)
        return bool(older.get("run_id") != run_id)
    return request  # a plain request (one carrying a return or retry returned above)


def _continues(message: Mapping[str, Any]) -> bool:
    """Whether ``message`` carries a tool return or retry."""
    for part in message["parts"]:  # noqa: SIM110 - a plain loop: no generator on this hot path
        if part["part_kind"] in CONTINUATION_PART_KINDS:
            return True
    return False


@dataclass(frozen=True, slots=True)
class MessageGroup:
    """One complete exchange: ``messages[start:end]`` of the history.

    ``texts`` holds each message's compact JSON (oldest first): the exact bytes the
    group costs, serialized once and reused for cost, digest and detachment.
    """

    start: int
    end: int
    texts: tuple[str, ...]
    chars: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "chars", sum(map(len, self.texts)))


def iter_groups_newest_first(
    messages: Sequence[Message], text_of: Callable[[int], str] | None = None, checked: bool = False
) -> Iterator[MessageGroup]:
    """Yield complete groups from the newest backward, validating what it reads.

    ``text_of(index)``, when given, is ``compact_json(messages[index])`` already known
    (a caller that keeps it across requests). ``checked``: every message was validated
    by ``check_message`` when the caller converted it (tool pairing is still checked)."""
    end = len(messages)
    texts: list[str] = []  # the open group's texts, newest first
    neighbour_checked = False  # messages[index] was checked as its newer neighbour's older one
    for index in range(end - 1, -1, -1):
        message = messages[index]
        if not checked and not neighbour_checked:
            check_message(message, "history", index)
        texts.append(compact_json(message) if text_of is None else text_of(index))
        # starts_group reads the older neighbour of a message with a run_id: checked here, once
        neighbour_checked = not checked and index > 0 and message.get("run_id") is not None
        if neighbour_checked:
            check_message(messages[index - 1], "history", index - 1)
        if starts_group(messages, index, checked=True):
            orphan = _first_orphan(messages[index:end])
            if orphan is not None:  # the group's name is made only for the error
                _raise_orphan(f"history[{index}:{end}]", *orphan)
            texts.reverse()
            yield MessageGroup(index, end, tuple(texts))
            end = index
            texts = []


def tool_call_ids(message: Mapping[str, Any]) -> list[str]:
    return [p["tool_call_id"] for p in message["parts"] if p["part_kind"] == "tool-call" and p.get("tool_call_id")]


def returned_ids(message: Mapping[str, Any]) -> list[str]:
    return [
        p["tool_call_id"]
        for p in message["parts"]
        if p["part_kind"] in CONTINUATION_PART_KINDS and p.get("tool_call_id")
    ]


def check_tool_pairing(messages: Sequence[Message], where: str) -> None:
    """Every tool return (or retry for a call) answers a call made earlier in the same span."""
    orphan = _first_orphan(messages)
    if orphan is not None:
        _raise_orphan(where, *orphan)


def _first_orphan(messages: Sequence[Message]) -> tuple[int, str] | None:
    """The first tool return (offset, call id) that answers no call made earlier in ``messages``."""
    called: set[str] = set()
    for offset, message in enumerate(messages):
        calls = []  # one pass over the parts; this message's own calls count from the next message on
        for part in message["parts"]:
            call_id = part.get("tool_call_id")
            if not call_id:
                continue
            kind = part["part_kind"]
            if kind == "tool-call":
                calls.append(call_id)
            elif kind in CONTINUATION_PART_KINDS and call_id not in called:
                return offset, call_id
        called.update(calls)
    return None


def _raise_orphan(where: str, offset: int, call_id: str) -> NoReturn:
    raise HistoryError(
        f"{where}: message {offset} returns tool call {call_id!r} that no earlier message in its "
        "group made; a tool return must travel with its call"
    )


def check_continuation(value: object) -> list[Message]:
    """The indivisible continuation: valid messages, never opening with an orphan tool return."""
    messages = check_messages(value, "continuation")
    check_tool_pairing(messages, "continuation")
    return messages


def thaw(texts: Sequence[str]) -> list[Message]:
    """Fresh messages from their compact JSON: a deep copy that cannot share state."""
    return [json.loads(text) for text in texts]


def group_messages(messages: Sequence[Message]) -> list[MessageGroup]:
    """All complete groups, oldest first."""
    return list(reversed(list(iter_groups_newest_first(messages))))
