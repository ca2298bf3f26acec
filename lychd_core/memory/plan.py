"""Retrieval plans: the selected memories and an explanation for every input record.

Explanations of records that never reached ranking are derived on demand from the
compiled filter (the same chain a full scan runs), so an index-backed plan does not pay
to explain records its posting lists never touched, yet still explains each of them.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, overload

from lychd_core.digests import StreamedArray, streamed_json_digest
from lychd_core.errors import UnknownMemoryError
from lychd_core.memory.admission import Admission, Candidate
from lychd_core.memory.evidence import MemoryEvidence
from lychd_core.memory.explanation import MemoryExplanation
from lychd_core.memory.filters import CompiledFilter
from lychd_core.memory.query import MemoryQuery
from lychd_core.memory.ranking import Scorer
from lychd_core.memory.records import MemoryRecord

PLAN_FORMAT = "lychd-memory-retrieval/1"


class Explanations(Sequence[MemoryExplanation]):
    """Every input record's explanation in canonical (memory id, revision) order."""

    def __init__(
        self,
        records: Sequence[MemoryRecord],
        presets: Mapping[tuple[str, int], MemoryExplanation],
        compiled: CompiledFilter,
        admission: Admission,
    ) -> None:
        self._records = records
        self._presets = presets
        self._filter = compiled
        self._admission = admission

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, index: int) -> MemoryExplanation: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[MemoryExplanation]: ...
    def __getitem__(self, index: int | slice) -> MemoryExplanation | Sequence[MemoryExplanation]:
        if isinstance(index, slice):
            return [self._explain(record) for record in self._records[index]]
        return self._explain(self._records[index])

    def __iter__(self) -> Iterator[MemoryExplanation]:
        return (self._explain(record) for record in self._records)

    def _explain(self, record: MemoryRecord) -> MemoryExplanation:
        preset = self._presets.get((record.memory_id, record.revision))
        if preset is not None:
            return preset
        reason = self._filter.first_failure(record)
        if reason is None:
            return self._admission.explain(record)
        return MemoryExplanation(record.memory_id, record.revision, False, reason, self._filter.detail(record, reason))

    def find(self, memory_id: str) -> MemoryExplanation:
        """The explanation of the newest input revision of ``memory_id``."""
        position = bisect.bisect_right(self._records, (memory_id, 2**63), key=lambda r: (r.memory_id, r.revision))
        if position == 0 or self._records[position - 1].memory_id != memory_id:
            raise UnknownMemoryError(f"memory {memory_id!r} was not an input of this retrieval")
        return self._explain(self._records[position - 1])


class RetrievalPlan:
    """The outcome of one retrieval: ranked, admitted and explained."""

    def __init__(
        self,
        query: MemoryQuery,
        admission: Admission,
        explanations: Explanations,
        view_digest: Callable[[], str],
    ) -> None:
        self.query = query
        self._admission = admission
        self.selected = admission.selected
        """Selected records in rank order."""
        self._selected_explanations = tuple(e for e in admission.walked if e.selected)
        self.explanations = explanations
        """Every input record's explanation, in (memory id, revision) order."""
        self._view_digest_of = view_digest
        self._view_digest: str | None = None
        self._digest: str | None = None

    @property
    def ranked(self) -> tuple[MemoryExplanation, ...]:
        """Every record that passed the filters, in rank order, selected or not."""
        return self._admission.ranked()

    @property
    def tokens(self) -> int:
        """Evidence tokens of the selected memories."""
        return self._admission.tokens

    @property
    def view_digest(self) -> str:
        """Digest of the canonical active view the plan was computed over (computed once, on demand)."""
        if self._view_digest is None:
            self._view_digest = self._view_digest_of()
        return self._view_digest

    @property
    def digest(self) -> str:
        """Digest of query, active view and ranked outcome; explanations follow from these."""
        if self._digest is None:
            ranked = StreamedArray(
                [e.memory_id, e.revision, e.rank, dict(e.scores or {}), e.selected, e.reason and e.reason.value]
                for e in self.ranked
            )
            # built here from checked records and a checked query (integer scores), and the ranked
            # list (as long as the store, for a broad query) hashed as a stream: no size bound
            self._digest = streamed_json_digest(
                {"format": PLAN_FORMAT, "query": self.query.to_json(), "view": self.view_digest, "ranked": ranked}
            )
        return self._digest

    def __eq__(self, other: object) -> bool:
        """Plans compare by value: query, active view and ranking (the digest), and every
        input's explanation."""
        if not isinstance(other, RetrievalPlan):
            return NotImplemented
        return (
            self.digest == other.digest
            and len(self.explanations) == len(other.explanations)
            and all(a == b for a, b in zip(self.explanations, other.explanations, strict=True))
        )

    def __hash__(self) -> int:
        return hash(self.digest)

    def explain(self, memory_id: str) -> MemoryExplanation:
        return self.explanations.find(memory_id)

    def evidence(self) -> tuple[MemoryEvidence, ...]:
        """Selected memories as quoted, non-authoritative evidence, in rank order."""
        return tuple(
            MemoryEvidence.of(record, explanation.rank or 0, explanation.scores or {})
            for record, explanation in zip(self.selected, self._selected_explanations, strict=True)
        )

    def counts(self) -> dict[str, int]:
        """How many input records were selected or excluded for each reason (walks every explanation)."""
        tally = Counter("selected" if e.selected else (e.reason.value if e.reason else "?") for e in self.explanations)
        return dict(sorted(tally.items()))

    def to_json(self, *, explain: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": PLAN_FORMAT,
            "digest": self.digest,
            "view_digest": self.view_digest,
            "query": self.query.to_json(),
            "selected": [e.to_json() for e in self._selected_explanations],
            "tokens": self.tokens,
            "inputs": len(self.explanations),
            "counts": self.counts(),
        }
        if explain:
            data["explanations"] = [e.to_json() for e in self.explanations]
        return data


def admit(
    query: MemoryQuery,
    candidates: list[Candidate],
    scorer: Scorer,
    inputs: Sequence[MemoryRecord],
    compiled: CompiledFilter,
    view_digest: Callable[[], str],
    presets: Mapping[tuple[str, int], MemoryExplanation] | None = None,
) -> RetrievalPlan:
    """Admit ranked ``candidates`` and explain every record of ``inputs``."""
    admission = Admission(query, candidates, scorer)
    explanations = Explanations(inputs, dict(presets or {}), compiled, admission)
    return RetrievalPlan(query, admission, explanations, view_digest)
