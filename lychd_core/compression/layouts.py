"""How a proposal's derived history splits into messages, remembered while the proposal lives.

A compressor that offers the same (immutable) proposal again, for a settled group at the
next model call, need not have its content parsed again: kept messages are remembered by
their index among the sources' messages (each call renders its own caller's objects),
parsed ones as checked. An entry goes when its proposal is freed, so a compressor that
makes new proposals every call leaves nothing behind.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

from lychd_core.families import CompactionProposal
from lychd_core.history import Message

Layout = tuple[tuple[int | Message, ...], tuple[str, ...], int]
"""Each message as an index into the sources' messages or as parsed, the texts, and how
many source messages there were."""


class ProposalLayouts:
    """Layouts keyed by the proposal object itself (by identity, never by value)."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[CompactionProposal], Layout]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, proposal: CompactionProposal) -> Layout | None:
        entry = self._entries.get(id(proposal))
        if entry is None or entry[0]() is not proposal:
            return None
        return entry[1]

    def put(
        self,
        proposal: CompactionProposal,
        messages: Sequence[Message],
        texts: tuple[str, ...],
        known: Sequence[Message],
    ) -> None:
        layout = tuple(
            index if index < len(known) and message is known[index] else message
            for index, message in enumerate(messages)
        )
        key = id(proposal)

        def forget(ref: weakref.ref[CompactionProposal], key: int = key) -> None:
            with self._lock:
                if self._entries.get(key, (None,))[0] is ref:
                    del self._entries[key]

        with self._lock:
            self._entries[key] = (weakref.ref(proposal, forget), (layout, texts, len(known)))

    @staticmethod
    def messages(layout: Layout, known: Sequence[Message]) -> tuple[Message, ...]:
        """The messages of ``layout``, kept ones taken from this call's ``known``."""
        return tuple(known[item] if isinstance(item, int) else item for item in layout[0])
