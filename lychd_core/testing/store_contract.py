"""The store contract kit: the same checks over every memory store and projection cache backend.

Subclass and override the fixtures (see ``tests/test_store_contract.py``)::

    class TestMyMemoryStore(MemoryStoreContract):
        @pytest.fixture
        def open_store(self, tmp_path):
            return lambda create: MyStore.open(..., create=create)   # the same fresh store each call

        def tamper_body(self, memory_id, revision, body): ...        # edit a row behind the store's back

Test names are public API: they only ever gain tests, never change meaning.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from lychd_core.digests import STREAM_BATCH, sha256_digest, text_digest
from lychd_core.errors import (
    CorruptStoreError,
    ForgottenMemoryError,
    MemoryStoreError,
    ProjectionCacheError,
    RevisionConflictError,
    RevisionRegressionError,
    StoreClosedError,
    StoreMissingError,
    TombstoneMismatchError,
    UnknownMemoryError,
)
from lychd_core.families import Projected
from lychd_core.memory import ClaimType, MemoryIndex, MemoryQuery, MemoryRecord, MemoryScope, Tombstone, forget
from lychd_core.memory.lifecycle import expire, review
from lychd_core.memory.protocol import MemoryStore
from lychd_core.projection.cache_counts import KEEP_COUNT_RECORDS, set_digest
from lychd_core.projection.cache_entries import CacheKey
from lychd_core.projection.cache_protocol import ProjectionCacheStore
from lychd_core.projection.fingerprints import FileRecord
from lychd_core.projection.media import detect_media_type
from lychd_core.vocabulary import Provenance

Opener = Callable[[bool], MemoryStore]


def _strictly_after(instant_ns: int) -> int:
    """A cutoff the clock has passed: rows written before the call are older, rows written after are not."""
    while time.time_ns() <= instant_ns:  # a coarse clock may return the same reading twice
        pass
    return time.time_ns()


def contract_record(memory_id: str = "m1", **fields: Any) -> MemoryRecord:
    values: dict[str, Any] = {
        "memory_id": memory_id,
        "revision": 1,
        "scope": MemoryScope(project="p"),
        "claim_type": ClaimType.PROCEDURE,
        "claim": f"Run the release checklist for {memory_id}.",
        "source_provenance": Provenance.USER,
        "source_events": ("ev1",),
        "confidence": 8000,
        "token_estimate": 10,
        "created": 1,
        "observed": 1,
        "features": (("release", 5000),),
    }
    values.update(fields)
    return MemoryRecord(**values)


class MemoryStoreContract:
    """Every memory store backend passes these."""

    @pytest.fixture
    def open_store(self) -> Opener:
        raise NotImplementedError("override open_store: create -> the same fresh store on every call")

    def tamper_body(self, memory_id: str, revision: int, body: str) -> None:
        raise NotImplementedError("override tamper_body: rewrite a stored body behind the store's back")

    def test_implements_the_protocol(self, open_store: Opener) -> None:
        with open_store(True) as store:
            assert isinstance(store, MemoryStore)

    def test_reads_never_create_a_store(self, open_store: Opener) -> None:
        with pytest.raises(StoreMissingError):
            open_store(False)
        with pytest.raises(StoreMissingError):
            open_store(False)  # still missing: the refused read wrote nothing
        open_store(True).close()
        with open_store(False) as store:
            assert store.records() == () and store.last_observation() == 0

    def test_round_trip_survives_reopening(self, open_store: Opener) -> None:
        first = contract_record()
        with open_store(True) as store:
            assert store.add(first) and store.add(review(first, 5))
        with open_store(False) as store:
            assert store.latest("m1") == review(first, 5) and store.latest("nope") is None
            assert [r.revision for r in store.records()] == [1, 2]
            assert store.last_observation() == 5

    def test_adding_is_idempotent_and_refuses_regressions_and_conflicts(self, open_store: Opener) -> None:
        with open_store(True) as store:
            first = contract_record()
            second = review(first, 5)
            assert store.add(first) and store.add(second)
            assert not store.add(first) and store.add_many([first, second]) == 0
            fresh = contract_record("m3")
            assert store.add_many([fresh, review(fresh, 4), fresh]) == 2
            with pytest.raises(RevisionConflictError):
                store.add_many([contract_record("m4"), contract_record("m4", claim="same revision, other content")])
            with pytest.raises(RevisionConflictError):
                store.add(contract_record(claim="a different first revision"))
            store.add(contract_record("m2", revision=5, observed=5))
            with pytest.raises(RevisionRegressionError):
                store.add(contract_record("m2", revision=3, observed=3))

    def test_transitions_compare_and_set_on_the_newest_revision(self, open_store: Opener) -> None:
        with open_store(True) as store:
            store.add(contract_record())
            assert store.transition("m1", lambda r: review(r, 3)).revision == 2
            assert store.transition("m1", lambda r: expire(r, 4)).revision == 3
            with pytest.raises(UnknownMemoryError):
                store.transition("absent", lambda r: r)
            with pytest.raises(MemoryStoreError):
                store.transition("m1", lambda r: contract_record("other"))
            assert [r.revision for r in store.records()] == [1, 2, 3]

    def test_a_failing_batch_writes_nothing(self, open_store: Opener) -> None:
        with open_store(True) as store:
            store.add(contract_record("kept"))
            good = [contract_record(f"new{i}") for i in range(60)]
            with pytest.raises(RevisionConflictError):
                store.add_many([*good, contract_record("kept", claim="conflict")])
            assert [r.memory_id for r in store.records()] == ["kept"]
            with pytest.raises(MemoryStoreError):
                store.add_many([contract_record("x"), "not a record"])  # type: ignore[list-item]

    def test_forget_removes_content_and_keeps_a_tombstone(self, open_store: Opener) -> None:
        with open_store(True) as store:
            first = contract_record(claim="the staging password is hunter2")
            store.add_many([first, review(first, 2), contract_record("other")])
            stone = store.forget("m1", "user asked", 3)
            assert stone.revision == 2 and store.tombstones() == (stone,)
            assert [r.memory_id for r in store.records()] == ["other"]
            with pytest.raises(ForgottenMemoryError):
                store.forget("m1", "again", 4)
            with pytest.raises(UnknownMemoryError):
                store.forget("never", "x", 4)
            with pytest.raises(ForgottenMemoryError):
                store.add(first)
            survivor = contract_record(revision=3, observed=5, claim="a corrected memory")
            assert store.add(survivor) and store.view().records[0] == survivor
            assert store.check()["integrity"] == "ok"

    def test_imported_tombstones_are_checked(self, open_store: Opener) -> None:
        with open_store(True) as store:
            record = contract_record()
            store.add(record)
            with pytest.raises(TombstoneMismatchError):
                store.add_tombstone(Tombstone("m1", 1, contract_record(claim="other").digest, 9, "x"))
            stone = forget(record, "import", 9)
            assert store.add_tombstone(stone) and not store.add_tombstone(stone)
            with pytest.raises(RevisionConflictError):
                store.add_tombstone(Tombstone("m1", 1, record.digest, 10, "different"))
            assert store.records() == ()

    def test_a_large_batch_is_one_transaction(self, open_store: Opener) -> None:
        batch = [contract_record(f"bulk{i:05d}") for i in range(1_500)]
        with open_store(True) as store:
            assert store.add_many(batch) == 1_500 and store.add_many(batch) == 0
            assert len(store.index().records) == 1_500

    def test_the_index_follows_other_writers(self, open_store: Opener) -> None:
        with open_store(True) as reader, open_store(False) as writer:
            before = reader.index().digest
            assert reader.index().digest == before
            writer.add(contract_record("late"))
            after = reader.index()
            assert after.digest != before and [r.memory_id for r in after.records] == ["late"]
            assert after.digest == MemoryIndex(writer.view()).digest == writer.rebuild_index().digest

    def test_queries_explain_every_record(self, open_store: Opener) -> None:
        with open_store(True) as store:
            store.add_many([contract_record(f"m{i}", confidence=1000 * i) for i in range(1, 6)])
            plan = store.query(MemoryQuery(scope=MemoryScope(project="p"), now=9, features=("release",), limit=3))
            assert len(plan.selected) == 3 and len(plan.explanations) == 5
            assert store.stats()["index_digest"] == store.index().digest

    def test_digests_are_the_pinned_canonical_stream_past_one_batch(self, open_store: Opener) -> None:
        """The active-set digest every plan binds is canonical JSON of ``[id, revision, digest]`` per
        record, hashed as a stream (no bound but memory): over more records than two stream batches it
        is the whole list's, the same on every backend, and pinned, so a new format is never silent."""
        records = [contract_record(f"s{n:05d}", confidence=n % 10_001) for n in range(2 * STREAM_BATCH + 3)]
        with open_store(True) as store:
            store.add_many(records)
            store.forget("s00000", "asked", 5)
            index = store.index()
            whole = json.dumps([[r.memory_id, r.revision, r.digest] for r in records[1:]], separators=(",", ":"))
            assert index.active_digest == store.view().digest == sha256_digest(whole.encode())
            assert index.active_digest == "sha256:4669472d3f7af06eb040b50b73942d8235365e920e1b505ee107f94f7bcc5dc0"
            assert index.digest == "sha256:596cee6971ec25c77bd9cdc58a94b043ea2c0edb5477fa8ec062165fe1633ac2"
            plan = store.query(MemoryQuery(scope=MemoryScope(project="p"), now=9, limit=3))
            assert plan.view_digest == index.active_digest and len(plan.ranked) == len(records) - 1
            assert plan.digest == "sha256:13c4cd6495bce2264307a81467a9810573012494498bb457690be4c91d12a1b1"

    def test_an_edited_record_is_refused_when_read(self, open_store: Opener) -> None:
        with open_store(True) as store:
            record = contract_record(claim="use the blue deploy key")
            store.add(record)
        body = record.canonical_text().replace("blue", "red!")
        self.tamper_body("m1", 1, body)
        with open_store(False) as store:
            with pytest.raises(CorruptStoreError):
                store.query(MemoryQuery(scope=MemoryScope(project="p"), now=9))
            with pytest.raises(CorruptStoreError):
                store.check()

    def test_a_closed_store_refuses_use(self, open_store: Opener) -> None:
        store = open_store(True)
        store.close()
        with pytest.raises(StoreClosedError):
            store.records()


CACHE_KEY = CacheKey(sha256_digest(b"src"), "verbatim", 1, sha256_digest(b"opts"), "python 3.11 codecs")
CACHE_OUTCOME = Projected(text="hello\nworld", facts={"n": 2}, line_map=(1, 2))
CACHE_FACTS = b'{"n":2}'


class ProjectionCacheStoreContract:
    """Every projection cache backend passes these."""

    @pytest.fixture
    def cache(self) -> ProjectionCacheStore:
        raise NotImplementedError("override cache: a fresh, empty cache")

    @pytest.fixture
    def other_key_cache(self, cache: ProjectionCacheStore) -> ProjectionCacheStore:
        raise NotImplementedError("override other_key_cache: the same storage read with another MAC key")

    def rewrite_entry(self, cache: ProjectionCacheStore, payload: str, facts: str, tag: str) -> None:
        raise NotImplementedError("override rewrite_entry: overwrite every projection row behind the cache's back")

    def read_entry(self, cache: ProjectionCacheStore) -> tuple[str, str, str]:
        raise NotImplementedError("override read_entry: (payload, facts, tag) of the only projection row")

    def rewrite_counts(self, cache: ProjectionCacheStore, count: int) -> None:
        pytest.skip("override rewrite_counts: set every token_counts row's count behind the cache's back")

    def rewrite_count_records(self, cache: ProjectionCacheStore, counts: bytes) -> None:
        raise NotImplementedError("override rewrite_count_records: set every count record's counts behind its back")

    def fail_deletes_from(self, cache: ProjectionCacheStore, table: str) -> None:
        raise NotImplementedError("override fail_deletes_from: make every DELETE from ``table`` raise (a trigger)")

    def test_implements_the_protocol(self, cache: ProjectionCacheStore) -> None:
        assert isinstance(cache, ProjectionCacheStore)

    def _fill(self, cache: ProjectionCacheStore, n: int) -> CacheKey:
        key = CacheKey(sha256_digest(f"src{n}".encode()), "verbatim", 1, CACHE_KEY.options_digest, "v")
        cache.put(key, CACHE_OUTCOME, CACHE_FACTS)
        cache.remember_token_counts("c@1 t o", [(text_digest(f"text {n}"), n)])
        cache.remember_count_record("c@1 t o", set_digest([text_digest(f"text {n}")]), [n])
        cache.remember_media([(key.source_digest, "a.py", None, detect_media_type("a.py", b"x = 1\n"))])
        return key

    def test_prune_removes_exactly_the_rows_stored_before_the_cutoff(self, cache: ProjectionCacheStore) -> None:
        old = self._fill(cache, 0)
        cutoff = _strictly_after(time.time_ns())
        new = self._fill(cache, 1)
        dry = cache.prune(cutoff, dry_run=True)
        assert dry.dry_run and dry.removed == 4 and cache.get(old) is not None  # counted, nothing removed
        assert (dry.tables["projections"].removed, dry.tables["projections"].kept) == (1, 1)
        done = cache.prune(cutoff)
        assert done.tables == dry.tables and not done.dry_run
        assert cache.get(old) is None and cache.get(new) is not None and cache.count() == 1
        digests = [text_digest("text 0"), text_digest("text 1")]
        assert cache.token_counts("c@1 t o", digests) == {digests[1]: 1}
        assert cache.count_record("c@1 t o", set_digest(digests[:1])) is None
        assert cache.count_record("c@1 t o", set_digest(digests[1:])) == [1]
        assert cache.media(old.source_digest, "a.py", None) is None
        assert cache.prune(cutoff).removed == 0  # idempotent
        assert cache.prune(_strictly_after(time.time_ns())).removed == 4 and cache.count() == 0

    def test_a_prune_that_fails_part_way_removes_nothing(self, cache: ProjectionCacheStore) -> None:
        key = self._fill(cache, 0)
        self.fail_deletes_from(cache, "count_records")  # after projections, media and counts were deleted
        with pytest.raises(ProjectionCacheError, match="prune"):
            cache.prune(_strictly_after(time.time_ns()))
        assert cache.get(key) is not None and cache.count() == 1
        assert cache.token_counts("c@1 t o", [text_digest("text 0")]) == {text_digest("text 0"): 0}

    def test_count_records_are_kept_per_counter_and_list_and_verified(
        self, cache: ProjectionCacheStore, other_key_cache: ProjectionCacheStore
    ) -> None:
        digests, counts = [text_digest(f"text {n}") for n in range(3)], [0, 7, 2]
        key = set_digest(digests)
        assert cache.count_record("c@1 t o", key) is None
        cache.remember_count_record("c@1 t o", key, counts)
        cache.remember_count_record("c@1 t o", key, counts)  # replacing is idempotent
        assert cache.count_record("c@1 t o", key) == counts
        assert cache.count_record("c@2 t o", key) is None  # another revision never reuses a record
        assert cache.count_record("c@1 t o", set_digest(digests[:2])) is None  # nor another list of texts
        assert cache.count_record("c@1 t o", set_digest(digests[::-1])) is None  # nor the same in another order
        assert other_key_cache.count_record("c@1 t o", key) is None
        self.rewrite_count_records(cache, orjson.dumps([1, 1, 1]))
        assert cache.count_record("c@1 t o", key) is None  # edited counts fail the record's MAC: a miss
        self.rewrite_count_records(cache, b"not json")
        assert cache.count_record("c@1 t o", key) is None
        cache.remember_count_record("c@1 t o", key, counts)  # counted again, the record is repaired
        assert cache.count_record("c@1 t o", key) == counts

    def test_only_the_newest_count_records_are_kept(self, cache: ProjectionCacheStore) -> None:
        keys = [set_digest([text_digest(f"list {n}")]) for n in range(KEEP_COUNT_RECORDS + 2)]
        for n, key in enumerate(keys):
            cache.remember_count_record("c@1 t o", key, [n])
        kept = [n for n, key in enumerate(keys) if cache.count_record("c@1 t o", key) == [n]]
        assert kept == list(range(2, KEEP_COUNT_RECORDS + 2))

    def test_round_trip(self, cache: ProjectionCacheStore) -> None:
        assert cache.get(CACHE_KEY) is None
        cache.put(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)
        assert cache.get(CACHE_KEY) == (CACHE_OUTCOME, CACHE_FACTS) and cache.count() == 1
        other = CacheKey(CACHE_KEY.source_digest, "verbatim", 1, CACHE_KEY.options_digest, "python 3.12 codecs")
        assert cache.get(other) is None
        cache.put_many([(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)])
        assert cache.count() == 1

    def test_an_entry_forged_without_the_key_is_a_miss(self, cache: ProjectionCacheStore) -> None:
        cache.put(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)
        payload, facts, _ = self.read_entry(cache)
        forged = payload.replace("hello", "HACKED")
        forged = forged.replace(text_digest("hello\nworld"), text_digest("HACKED\nworld"))
        unkeyed = sha256_digest(f"{forged}\n{facts}".encode())  # what anyone who can write the store can compute
        self.rewrite_entry(cache, forged, facts, unkeyed)
        assert cache.get(CACHE_KEY) is None
        cache.put(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)  # re-projection overwrites the forged row
        assert cache.get(CACHE_KEY) == (CACHE_OUTCOME, CACHE_FACTS)

    def test_entries_written_under_another_key_are_misses(
        self, cache: ProjectionCacheStore, other_key_cache: ProjectionCacheStore
    ) -> None:
        cache.put(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)
        assert other_key_cache.get(CACHE_KEY) is None

    def test_media_decisions_are_remembered_and_verified(self, cache: ProjectionCacheStore) -> None:
        decision = detect_media_type("a.py", b"x = 1\n")
        digest = sha256_digest(b"x = 1\n")
        assert cache.media(digest, "a.py", None) is None
        cache.remember_media([(digest, "a.py", None, decision)])
        assert cache.media(digest, "a.py", None) == decision
        assert cache.media(digest, "a.py", "text/plain") is None

    def test_batched_reads_agree_with_single_reads(self, cache: ProjectionCacheStore) -> None:
        keys = [
            CacheKey(sha256_digest(f"src{n}".encode()), "verbatim", 1, CACHE_KEY.options_digest, "v") for n in range(5)
        ]
        cache.put_many([(key, CACHE_OUTCOME, CACHE_FACTS) for key in keys[:3]])
        found = cache.get_many(keys)
        assert sorted(found, key=keys.index) == keys[:3]
        for key, (outcome, facts) in found.items():
            single = cache.get(key)
            assert single is not None and facts == single[1] == CACHE_FACTS
            assert (outcome.text, outcome.line_map, outcome.omissions) == (CACHE_OUTCOME.text, (1, 2), ())
        decision = detect_media_type("a.py", b"x = 1\n")
        digest = sha256_digest(b"x = 1\n")
        cache.remember_media([(digest, "a.py", None, decision)])
        queries = [(digest, "a.py", None), (digest, "b.py", None), (digest, "a.py", "text/plain")]
        assert cache.media_many(queries) == {(digest, "a.py", None): decision}
        assert cache.get_many([]) == {} and cache.media_many([]) == {}

    def test_file_records_are_scoped_and_keyed(
        self, cache: ProjectionCacheStore, other_key_cache: ProjectionCacheStore
    ) -> None:
        decision = detect_media_type("a.py", b"x = 1\n")
        record = FileRecord("src/a.py", (1, 2, 6, 10, 11), sha256_digest(b"x = 1\n"), "", "detector", decision)
        assert cache.files("host:/w", ["src/a.py"]) == {}
        cache.remember_files("host:/w", [record])
        cache.remember_files("host:/w", [record])  # replacing is idempotent
        assert cache.files("host:/w", ["src/a.py", "src/b.py"]) == {"src/a.py": record}
        assert cache.files("host:/other", ["src/a.py"]) == {}
        assert other_key_cache.files("host:/w", ["src/a.py"]) == {}
