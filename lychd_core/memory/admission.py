"""Greedy admission in rank order under the result and token limits.

Candidates are ``(-total, tiebreak, record)`` with the tiebreak the record's position in
the id-ordered active view, so ties break by memory id. Only the walked prefix (until
the result limit is reached) is ordered eagerly; the rest are excluded by the result
limit and ranked only if someone asks for their explanations.
"""

from __future__ import annotations

import heapq
from types import MappingProxyType

from lychd_core.errors import UnknownMemoryError
from lychd_core.memory.evidence import evidence_tokens
from lychd_core.memory.explanation import MemoryExplanation
from lychd_core.memory.filters import ExclusionReason
from lychd_core.memory.query import MemoryQuery
from lychd_core.memory.ranking import Scorer
from lychd_core.memory.records import MemoryRecord

Candidate = tuple[int, int, MemoryRecord]


class Admission:
    """Walks candidates best-first: a record that does not fit the remaining tokens is
    skipped and later, smaller ones may still be admitted; at the result limit it stops."""

    def __init__(self, query: MemoryQuery, candidates: list[Candidate], scorer: Scorer) -> None:
        self._scorer = scorer
        self._query = query
        heap = candidates
        heapq.heapify(heap)
        walked: list[MemoryExplanation] = []
        selected: list[MemoryRecord] = []
        count = used = 0
        while heap and count < query.limit:
            negative_total, _, record = heapq.heappop(heap)
            rank = len(walked) + 1
            tokens = evidence_tokens(record)
            if query.max_tokens is not None and used + tokens > query.max_tokens:
                reason: ExclusionReason | None = ExclusionReason.TOKEN_LIMIT
                detail = f"rank {rank}: {tokens} tokens do not fit the {query.max_tokens - used} remaining"
            else:
                reason = None
                count += 1
                used += tokens
                selected.append(record)
                detail = f"rank {rank}, total score {-negative_total}"
            walked.append(self._explanation(record, rank, reason, detail, tokens))
        self.walked = tuple(walked)
        self.selected = tuple(selected)
        self.tokens = used
        self._known = {(e.memory_id, e.revision): e for e in walked}
        self._tail = heap
        self._tail_explanations: dict[tuple[str, int], MemoryExplanation] | None = None

    def _explanation(
        self, record: MemoryRecord, rank: int, reason: ExclusionReason | None, detail: str, tokens: int
    ) -> MemoryExplanation:
        scores = MappingProxyType(self._scorer.components(record))
        selected = reason is None
        return MemoryExplanation(record.memory_id, record.revision, selected, reason, detail, rank, scores, tokens)

    def _tail_ranked(self) -> dict[tuple[str, int], MemoryExplanation]:
        if self._tail_explanations is None:
            start = len(self.walked) + 1
            limit = self._query.limit
            self._tail_explanations = {}
            for rank, (_, _, record) in enumerate(sorted(self._tail), start=start):
                detail = f"rank {rank}: the result limit of {limit} was reached"
                explanation = self._explanation(
                    record, rank, ExclusionReason.RESULT_LIMIT, detail, evidence_tokens(record)
                )
                self._tail_explanations[(record.memory_id, record.revision)] = explanation
        return self._tail_explanations

    def ranked(self) -> tuple[MemoryExplanation, ...]:
        """Every candidate's explanation in rank order."""
        return self.walked + tuple(self._tail_ranked().values())

    def explain(self, record: MemoryRecord) -> MemoryExplanation:
        """The explanation of a record that passed every filter."""
        key = (record.memory_id, record.revision)
        known = self._known.get(key) or self._tail_ranked().get(key)
        if known is None:
            raise UnknownMemoryError(f"memory {record.memory_id!r} revision {record.revision} was never ranked")
        return known
