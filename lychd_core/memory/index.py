"""The memory index: a rebuildable projection over canonical records and tombstones.

It holds the active view (newest surviving revision per id, in id order) and posting
lists of positions by scope key (best confidence first), claim type and feature
(ascending). Only live (active-state)
records are posted: quarantined, expired and superseded ones can never be selected, so
they are explained on demand like every other record a query does not touch. A query
walks only the smallest posting set among the ones it constrains, then runs the full
filter chain on those records, so it returns exactly what a full scan of the active
view returns. Tombstoned records are not held at all: the index keeps no forgotten
content.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any

from lychd_core.digests import StreamedArray, json_digest, streamed_json_digest
from lychd_core.memory.admission import Candidate
from lychd_core.memory.filters import CompiledFilter
from lychd_core.memory.plan import RetrievalPlan, admit
from lychd_core.memory.query import MemoryQuery
from lychd_core.memory.ranking import Scorer, Statics, static_components
from lychd_core.memory.records import ClaimType, LifecycleState, MemoryRecord
from lychd_core.memory.scope import ScopeKey
from lychd_core.memory.tombstones import ActiveView, Tombstone, replay, view_digest

INDEX_FORMAT = "lychd-memory-index/1"


def _scope_sort_key(key: ScopeKey) -> tuple[tuple[bool, str], ...]:
    return tuple((value is not None, value or "") for value in key)


class MemoryIndex:
    """Posting lists over the canonical active view. Build with :meth:`build`."""

    def __init__(self, view: ActiveView) -> None:
        self.view = view
        self.records: tuple[MemoryRecord, ...] = view.records
        """The latest surviving revision of every id, in id order, whatever its lifecycle
        state (quarantined, expired and superseded ones too); only active ones are posted."""
        self.tombstones: tuple[Tombstone, ...] = view.tombstones
        scope: dict[ScopeKey, list[int]] = {}
        claim: dict[ClaimType, list[int]] = {}
        feature: dict[str, list[int]] = {}
        self.statics: list[Statics] = [static_components(record) for record in self.records]
        """Query-independent ranking components per position, computed once at build."""
        for position, record in enumerate(self.records):
            if record.state is not LifecycleState.ACTIVE:
                continue  # never selectable: explained on demand, not posted
            key = record.scope.key
            held = scope.get(key)
            if held is None:
                scope[key] = [position]
            else:
                held.append(position)
            claim.setdefault(record.claim_type, []).append(position)
            for name, _ in record.features:
                feature.setdefault(name, []).append(position)
        for positions in scope.values():
            # Best confidence first, so a minimum-confidence query reads only a prefix.
            positions.sort(key=lambda p: (-self.statics[p][1], p))
        self.scope_postings = scope
        self._scope_confidence = {key: [-self.statics[p][1] for p in positions] for key, positions in scope.items()}
        """Per scope key, negated confidences in posting order (ascending), for bisecting the prefix."""
        self.claim_postings = claim
        self.feature_postings = feature
        self._active_digest: str | None = None
        self._digest: str | None = None

    @classmethod
    def build(cls, records: Iterable[MemoryRecord], tombstones: Iterable[Tombstone] = ()) -> MemoryIndex:
        """Replay ``records`` and ``tombstones`` into the active view and index it."""
        return cls(replay(records, tombstones))

    def __len__(self) -> int:
        return len(self.records)

    def __eq__(self, other: object) -> bool:
        """Indexes compare by value: the digest binds the latest revisions, tombstones and postings."""
        if not isinstance(other, MemoryIndex):
            return NotImplemented
        return self.digest == other.digest

    def __hash__(self) -> int:
        return hash(self.digest)

    # --- identity ---------------------------------------------------------------

    @property
    def active_digest(self) -> str:
        """Digest of the active set (``[id, revision, digest]`` in id order, hashed as a stream)."""
        if self._active_digest is None:
            self._active_digest = view_digest(self.records)
        return self._active_digest

    def postings_json(self) -> dict[str, Any]:
        """Posting lists in canonical order: keys sorted; scope postings by descending confidence then
        position, the others by ascending position."""
        return self._postings(streamed=False)

    def _postings(self, *, streamed: bool) -> dict[str, Any]:
        """:meth:`postings_json`, its per-scope-key array (one pair per key) a stream if ``streamed``."""
        scope_keys = sorted(self.scope_postings, key=_scope_sort_key)
        pairs = ([list(key), self.scope_postings[key]] for key in scope_keys)
        return {
            "scope": StreamedArray(pairs) if streamed else list(pairs),
            "claim_type": {kind.value: positions for kind, positions in sorted(self.claim_postings.items())},
            "feature": dict(sorted(self.feature_postings.items())),
        }

    @property
    def digest(self) -> str:
        """Digest of the active set, the tombstones and the posting lists."""
        if self._digest is None:
            self._digest = json_digest(
                {
                    "format": INDEX_FORMAT,
                    "active": self.active_digest,
                    # streamed: both grow with the store, and neither may be bounded by its size
                    "tombstones": streamed_json_digest(StreamedArray(stone.to_json() for stone in self.tombstones)),
                    "postings": streamed_json_digest(self._postings(streamed=True)),
                }
            )
        return self._digest

    # --- retrieval --------------------------------------------------------------

    def _driver(self, query: MemoryQuery, compiled: CompiledFilter) -> tuple[Iterable[int], bool]:
        """Positions of the smallest posting set the query constrains (a superset of what passes), and
        whether those positions come from the query's scope postings (so they are all in scope)."""
        options: list[tuple[int, Sequence[Sequence[int]]]] = []
        scope_lists = []
        for key in compiled.scope_keys:
            posting = self.scope_postings.get(key)
            if posting is not None:
                cut = bisect_right(self._scope_confidence[key], -query.min_confidence)
                scope_lists.append(posting if cut == len(posting) else posting[:cut])
        options.append((sum(map(len, scope_lists)), scope_lists))
        for name in query.required_features:
            posting = self.feature_postings.get(name, [])
            options.append((len(posting), [posting]))
        if query.claim_types:
            claim_lists = [self.claim_postings[kind] for kind in query.claim_types if kind in self.claim_postings]
            options.append((sum(map(len, claim_lists)), claim_lists))
        _, lists = min(options, key=lambda option: option[0])
        return chain.from_iterable(lists), lists is scope_lists

    def retrieve(self, query: MemoryQuery) -> RetrievalPlan:
        """The same plan as a full scan of the active view, touching only the needed posting lists."""
        compiled = CompiledFilter(query)
        first_failure = compiled.first_failure
        scorer = Scorer(query)
        total = scorer.total
        records, statics = self.records, self.statics
        candidates: list[Candidate] = []
        positions, in_scope = self._driver(query, compiled)
        if in_scope:
            first_failure = compiled.first_failure_in_scope
        for position in positions:
            record = records[position]
            if first_failure(record) is None:
                candidates.append((-total(record, statics[position]), position, record))
        return admit(query, candidates, scorer, records, compiled, lambda: self.active_digest)

    def stats(self) -> dict[str, Any]:
        return {
            "active": len(self.records),
            "tombstones": len(self.tombstones),
            "states": dict(sorted(Counter(r.state.value for r in self.records).items())),
            "claim_types": dict(sorted(Counter(r.claim_type.value for r in self.records).items())),
            "scope_keys": len(self.scope_postings),
            "features": len(self.feature_postings),
        }
