"""How a proposal's derived history splits into messages, remembered while the proposal lives.

A compressor that offers the same (immutable) proposal again, for a settled group at the
next model call, need not have its content parsed again: kept messages are remembered by
their index among the sources' messages (each call renders its own caller's objects),
parsed ones as checked. Entries are held per proposal object (``ProposalMemo``): a
compressor that makes new proposals every call leaves only a bounded number behind.
"""

from __future__ import annotations

from collections.abc import Sequence

from lychd_core.compression.memo import ProposalMemo
from lychd_core.families import CompactionProposal
from lychd_core.history import Message

Layout = tuple[tuple[int | Message, ...], tuple[str, ...], int]
"""Each message as an index into the sources' messages or as parsed, the texts, and how
many source messages there were."""


class ProposalLayouts:
    """Layouts keyed by the proposal object itself (by identity, never by value)."""

    def __init__(self) -> None:
        self._memo: ProposalMemo[Layout] = ProposalMemo()

    def __len__(self) -> int:
        return len(self._memo)

    def get(self, proposal: CompactionProposal) -> Layout | None:
        return self._memo.get(proposal)

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
        self._memo.put(proposal, (layout, texts, len(known)))

    @staticmethod
    def messages(layout: Layout, known: Sequence[Message]) -> tuple[Message, ...]:
        """The messages of ``layout``, kept ones taken from this call's ``known``."""
        return tuple(known[item] if isinstance(item, int) else item for item in layout[0])
