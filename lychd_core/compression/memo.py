"""Memos of what was already derived from content offered again: bounded and keyed by
digests (:class:`BoundedMemo`), or held per proposal object while it lives (:class:`ProposalMemo`)."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Generic, TypeVar

from lychd_core.families import CompactionProposal

K = TypeVar("K")
V = TypeVar("V")


class BoundedMemo(Generic[K, V]):
    """At most ``entries`` values; the least recently used goes first."""

    def __init__(self, entries: int) -> None:
        if entries < 1:
            raise ValueError(f"a memo needs room for at least one entry, got {entries}")
        self._entries = entries
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._values)

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self._entries:
                self._values.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()


class ProposalMemo(Generic[V]):
    """A value per proposal object, keyed by identity (never by an equal value), kept while
    the proposal lives: a compressor that offers the same (immutable) proposal for a settled
    group at the next model call finds it. Entries of freed proposals are swept once as many
    have been added as were live at the last sweep (at least ``SWEEP_AFTER``), so a compressor
    that makes new proposals every call leaves a bounded number behind. A weak reference
    without a callback is shared by every memo of one proposal."""

    SWEEP_AFTER = 1_024

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[CompactionProposal], V]] = {}
        self._lock = threading.Lock()
        self._sweep_at = self.SWEEP_AFTER

    def __len__(self) -> int:
        """Entries whose proposal lives."""
        return sum(1 for ref, _ in list(self._entries.values()) if ref() is not None)

    @property
    def held(self) -> int:
        """Entries held, those of freed proposals included until the next sweep."""
        return len(self._entries)

    def get(self, proposal: CompactionProposal) -> V | None:
        entry = self._entries.get(id(proposal))
        if entry is None or entry[0]() is not proposal:
            return None
        return entry[1]

    def put(self, proposal: CompactionProposal, value: V) -> None:
        with self._lock:
            self._entries[id(proposal)] = (weakref.ref(proposal), value)
            if len(self._entries) >= self._sweep_at:
                self._entries = {key: entry for key, entry in self._entries.items() if entry[0]() is not None}
                self._sweep_at = max(self.SWEEP_AFTER, 2 * len(self._entries))
