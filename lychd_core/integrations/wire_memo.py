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
from typing import Any, Generic, TypeVar

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


class MemoEntry:
    """One converted message: its measured wire form and, once computed, its compact JSON."""

    __slots__ = ("ref", "shape", "text", "wire")

    def __init__(self, ref: weakref.ref[Any], shape: Shape, wire: Message) -> None:
        self.ref = ref
        self.shape = shape
        self.wire = wire
        self.text: str | None = None


class WireMemo(Generic[ItemT]):
    """Measured wire forms (and their compact JSON) of live message objects.

    Holds at most ``limit`` entries (the oldest goes first); an entry also goes when its
    message object is collected. The wire forms handed out are shared: never edit them.
    """

    def __init__(self, limit: int = 65_536, shape: Callable[[object], Shape | None] = object_shape) -> None:
        self._entries: dict[int, MemoEntry] = {}
        self._limit = limit
        self._shape = shape

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, item: ItemT) -> MemoEntry | None:
        entry = self._entries.get(id(item))
        if entry is None or entry.ref() is not item or entry.shape != self._shape(item):
            return None
        return entry

    def put(self, item: ItemT, wire: Message) -> MemoEntry | None:
        """Remember ``item``'s measured wire form; ``None`` if it cannot be memoized."""
        shape = self._shape(item)
        if shape is None:
            return None
        key = id(item)
        entries = self._entries

        def forget(ref: weakref.ref[Any]) -> None:
            entry = entries.get(key)
            if entry is not None and entry.ref is ref:
                del entries[key]

        try:
            ref = weakref.ref(item, forget)
        except TypeError:  # not weakly referenceable: never memoized
            return None
        if key not in entries and len(entries) >= self._limit:
            del entries[next(iter(entries))]
        entry = entries[key] = MemoEntry(ref, shape, wire)
        return entry
