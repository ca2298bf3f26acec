"""Streamed digests: the active-set, tombstone, posting and plan digests hash canonical JSON
batch by batch, with the bytes of the whole value, and no bound but memory (issue: a store of
a million memories could not retrieve, canonical JSON refusing its million-list active set)."""

from __future__ import annotations

import hashlib
import json
from types import SimpleNamespace
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lychd_core import digests
from lychd_core.digests import StreamedArray, streamed_json_digest
from lychd_core.memory import MemoryIndex, MemoryQuery, MemoryScope, forget
from lychd_core.memory.plan import PLAN_FORMAT
from lychd_core.memory.tombstones import view_digest
from lychd_core.testing.store_contract import contract_record

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference(value: object) -> str:
    """The digest as the standard library writes canonical JSON of the whole value at once."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=6)  # a lone surrogate is no text
built = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
triples = st.lists(
    st.tuples(st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True), st.integers(1, 2**62), st.integers(0, 2**256 - 1)),
    max_size=30,
    unique_by=lambda t: t[0],
).map(sorted)


def _records(rows: list[tuple[str, int, int]]) -> list[Any]:
    return [SimpleNamespace(memory_id=i, revision=r, digest=f"sha256:{d:064x}") for i, r, d in rows]


@SETTINGS
@given(st.lists(built, max_size=12), built, st.integers(1, 5))
def test_a_streamed_array_has_the_digest_of_the_whole_value(items: list[Any], other: Any, batch: int) -> None:
    with mock.patch.object(digests, "STREAM_BATCH", batch):
        assert streamed_json_digest(StreamedArray(iter(items))) == reference(items)
        inside = {"z": StreamedArray(iter(items)), "a": other, "m": {"deep": StreamedArray(items)}}
        assert streamed_json_digest(inside) == reference({"z": items, "a": other, "m": {"deep": items}})
        assert streamed_json_digest(other) == reference(other)


@SETTINGS
@given(triples, st.integers(1, 4), st.data())
def test_the_view_digest_is_the_reference_and_changes_with_any_record(
    rows: list[tuple[str, int, int]], batch: int, data: st.DataObject
) -> None:
    with mock.patch.object(digests, "STREAM_BATCH", batch):
        before = view_digest(_records(rows))
        assert before == reference([[i, r, f"sha256:{d:064x}"] for i, r, d in rows])
        if rows:
            at = data.draw(st.integers(0, len(rows) - 1))
            memory_id, revision, digest = rows[at]
            changed = data.draw(
                st.sampled_from([(memory_id + "x", revision, digest), (memory_id, revision + 1, digest)])
                | st.integers(0, 2**256 - 1).filter(lambda d: d != digest).map(lambda d: (memory_id, revision, d))
            )
            assert view_digest(_records([*rows[:at], changed, *rows[at + 1 :]])) != before
        assert view_digest(_records(rows[:-1])) != before or not rows  # dropping a record changes it too


@SETTINGS
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=14), st.integers(1, 3), st.integers(0, 3))
def test_plan_and_index_digests_are_the_reference(confidences: list[int], batch: int, forgotten: int) -> None:
    records = [
        contract_record(f"m{n:02d}", confidence=c, scope=MemoryScope(project=f"p{n % 3}"))
        for n, c in enumerate(confidences)
    ]
    stones = [forget(record, "asked", 2) for record in records[:forgotten]]
    with mock.patch.object(digests, "STREAM_BATCH", batch):
        index = MemoryIndex.build(records, stones)
        query = MemoryQuery(scope=MemoryScope(), now=9, limit=3)
        plan = index.retrieve(query)
        view = reference([[r.memory_id, r.revision, r.digest] for r in index.records])
        assert index.active_digest == plan.view_digest == view
        ranked = [
            [e.memory_id, e.revision, e.rank, dict(e.scores or {}), e.selected, e.reason and e.reason.value]
            for e in plan.ranked
        ]
        assert plan.digest == reference(
            {"format": PLAN_FORMAT, "query": query.to_json(), "ranked": ranked, "view": view}
        )
        parts = {
            "format": "lychd-memory-index/1",
            "active": view,
            "tombstones": reference([stone.to_json() for stone in index.tombstones]),
            "postings": reference(index.postings_json()),
        }
        assert index.digest == reference(parts)
