"""``retrieve``: filter before ranking, over records, an active view, or an index.

The canonical active view defines correctness; ``scan`` is its full scan, and an index
must return the same plan (same selection, scores, explanations and digest).
"""

from __future__ import annotations

from collections.abc import Iterable

from lychd_core.errors import InvalidQueryError
from lychd_core.memory.admission import Candidate
from lychd_core.memory.explanation import MemoryExplanation
from lychd_core.memory.filters import CompiledFilter, ExclusionReason
from lychd_core.memory.index import MemoryIndex
from lychd_core.memory.plan import RetrievalPlan, admit
from lychd_core.memory.query import MemoryQuery
from lychd_core.memory.ranking import Scorer, static_components
from lychd_core.memory.records import MemoryRecord
from lychd_core.memory.tombstones import ActiveView, Tombstone, replay


def retrieve(
    source: MemoryIndex | ActiveView | Iterable[MemoryRecord],
    query: MemoryQuery,
    *,
    tombstones: Iterable[Tombstone] = (),
) -> RetrievalPlan:
    """Plan which memories ``query`` receives.

    ``source`` is an index (posting-list retrieval), an active view, or records to replay
    with ``tombstones`` first. With raw records the plan also explains older revisions
    and forgotten records.
    """
    if not isinstance(query, MemoryQuery):
        raise InvalidQueryError(f"retrieve needs a MemoryQuery, got {type(query).__name__}")
    stones = tuple(tombstones)
    if isinstance(source, MemoryIndex | ActiveView) and stones:
        raise InvalidQueryError("an index or active view already applied its tombstones; pass none here")
    if isinstance(source, MemoryIndex):
        return source.retrieve(query)
    if isinstance(source, ActiveView):
        return scan(source, query)
    return scan(replay(source, stones), query, explain_replayed=True)


def scan(view: ActiveView, query: MemoryQuery, *, explain_replayed: bool = False) -> RetrievalPlan:
    """Full scan of the canonical active view: every active record runs the filter chain.

    With ``explain_replayed`` the plan also explains the view's older revisions and
    forgotten records (what ``retrieve`` does for raw records).
    """
    compiled = CompiledFilter(query)
    first_failure = compiled.first_failure
    scorer = Scorer(query)
    total = scorer.total
    candidates: list[Candidate] = [
        (-total(record, static_components(record)), position, record)
        for position, record in enumerate(view.records)
        if first_failure(record) is None
    ]
    inputs: tuple[MemoryRecord, ...] = view.records
    presets: dict[tuple[str, int], MemoryExplanation] = {}
    if explain_replayed and (view.older or view.forgotten):
        inputs = tuple(sorted(view.records + view.older + view.forgotten, key=lambda r: (r.memory_id, r.revision)))
        replayed_out = (
            (view.older, ExclusionReason.OLDER_REVISION, "a newer revision of this memory is in the inputs"),
            (view.forgotten, ExclusionReason.FORGOTTEN, "a tombstone at or above this revision forgets it"),
        )
        for records, reason, detail in replayed_out:
            for record in records:
                key = (record.memory_id, record.revision)
                presets[key] = MemoryExplanation(record.memory_id, record.revision, False, reason, detail)
    return admit(query, candidates, scorer, inputs, compiled, lambda: view.digest, presets)
