"""Wire forms of messages already converted, kept across requests by object identity.

A run's history is append-only: request after request, the settled messages are the
same Python objects, so converting, validating and serializing them again is the whole
fixed cost of bounding. The memo keeps, per live message object, its measured wire form
and that form's compact JSON; each request converts only the new tail.

An entry is trusted only while its object is alive (a weak reference, so a reused
``id`` can never match) and its shape is unchanged: the identities of the object's
fields, of its parts and of their fields. Reassigning any field, or adding, removing
or replacing a part, converts the message again. Editing a nested container in place
(a tool call's ``args`` dict, a list ``content``) is not seen: such a message must be
replaced, not edited, which is how Pydantic AI records history.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from lychd_core.history import Message

ItemT = TypeVar("ItemT")

Shape = tuple[int, ...]


def object_shape(item: object) -> Shape | None:
    """Identities of ``item``'s fields and of each of its ``parts``' fields, in order;
    ``None`` when ``item`` has no instance dictionary (then it is never memoized)."""
    fields = getattr(item, "__dict__", None)
    if fields is None:
        return None
    shape = [id(value) for value in fields.values()]
    parts = fields.get("parts")
    if parts is not None:
        shape.append(len(parts))
        for part in parts:
            part_fields = getattr(part, "__dict__", None)
            if part_fields is None:
                return None
            shape.append(id(part))
            shape.extend(id(value) for value in part_fields.values())
    return tuple(shape)


class MemoEntry(weakref.ref[object]):
    """One converted message: a weak reference to it, its shape when converted, its
    measured wire form and, once computed, its compact JSON (one object per entry)."""

    __slots__ = ("key", "shape", "text", "wire")
    key: int
    shape: Shape
    text: str | None
    wire: Message


class WireMemo(Generic[ItemT]):
    """Measured wire forms (and their compact JSON) of live message objects.

    Holds at most ``limit`` entries (the oldest goes first); an entry also goes when its
    message object is collected. The wire forms handed out are shared: never edit them.
    """

    def __init__(self, limit: int = 65_536, shape: Callable[[object], Shape | None] = object_shape) -> None:
        entries: dict[int, MemoEntry] = {}

        def forget(entry: MemoEntry) -> None:  # the object died: drop its entry, unless replaced
            if entries.get(entry.key) is entry:
                del entries[entry.key]

        self._entries = entries
        self._forget = forget
        self._limit = limit
        self._shape = shape

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, item: ItemT) -> MemoEntry | None:
        entry = self._entries.get(id(item))
        if entry is None or entry() is not item or entry.shape != self._shape(item):
            return None
        return entry

    def put(self, item: ItemT, wire: Message) -> MemoEntry | None:
        """Remember ``item``'s measured wire form; ``None`` if it cannot be memoized."""
        shape = self._shape(item)
        if shape is None:
            return None
        key = id(item)
        try:
            entry = MemoEntry(item, self._forget)
        except TypeError:  # not weakly referenceable: never memoized
            return None
        entry.key, entry.shape, entry.wire, entry.text = key, shape, wire, None
        entries = self._entries
        if key not in entries and len(entries) >= self._limit:
            del entries[next(iter(entries))]
        entries[key] = entry
        return entry
