"""The SQLite store: schema identity, migrations, append-only writes, forgetting, bad files, locks."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from lychd_core.errors import (
    CorruptStoreError,
    ForeignDatabaseError,
    ForgottenMemoryError,
    MemoryStoreError,
    ReleaseWithoutReviewError,
    RevisionConflictError,
    RevisionRegressionError,
    StaleObservationError,
    StoreClosedError,
    StoreLockedError,
    StoreMissingError,
    StoreVersionError,
    TerminalStateError,
    TombstoneMismatchError,
    UnknownMemoryError,
)
from lychd_core.memory import (
    ClaimType,
    MemoryIndex,
    MemoryQuery,
    MemoryRecord,
    MemoryScope,
    Tombstone,
    expire,
    forget,
    quarantine,
    release,
    review,
)
from lychd_core.stores.sqlite import SqliteMemoryStore
from lychd_core.stores.sqlite.memory_schema import APPLICATION_ID, LATEST_VERSION, MIGRATIONS, apply_migrations
from tests.support.memories import memory_record
from tests.support.sqlite_files import connected


def make(memory_id: str = "m1", **changes: Any) -> MemoryRecord:
    fields: dict[str, Any] = {"claim_type": ClaimType.PROCEDURE, "claim": f"Run the release checklist for {memory_id}."}
    fields.update(changes)
    return memory_record(memory_id=memory_id, **fields)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "memory.sqlite3"


def rows(path: Path, table: str) -> int:
    with connected(path) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def test_open_creates_a_marked_wal_store_and_reopens_it(store_path: Path) -> None:
    with SqliteMemoryStore.open(store_path) as store:
        assert store.schema_version == LATEST_VERSION
        assert store.add(make())
    with connected(store_path) as conn:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with SqliteMemoryStore.open(store_path, create=False) as again:
        assert again.records() == (make(),)
    with pytest.raises(StoreClosedError):
        again.records()


def test_a_missing_store_is_not_created_when_creation_is_off(tmp_path: Path) -> None:
    with pytest.raises(StoreMissingError):
        SqliteMemoryStore.open(tmp_path / "absent.sqlite3", create=False)
    assert not (tmp_path / "absent.sqlite3").exists()
    with pytest.raises(MemoryStoreError):
        SqliteMemoryStore.open(tmp_path)


def test_an_older_schema_is_migrated(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    with connected(store_path, isolation_level=None) as conn:
        conn.execute("BEGIN IMMEDIATE")
        apply_migrations(conn, 0, target=1)
        conn.execute("COMMIT")
    with SqliteMemoryStore.open(store_path) as store:
        assert store.schema_version == LATEST_VERSION == len(MIGRATIONS)
        store.add(make())
    with connected(store_path) as conn, pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE record_revisions SET body = 'x'")  # the migration-2 guard is in place


def test_a_foreign_sqlite_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    foreign = tmp_path / "other.sqlite3"
    with connected(foreign) as conn:
        conn.execute("CREATE TABLE things (x)")
    before = foreign.read_bytes()
    with pytest.raises(ForeignDatabaseError):
        SqliteMemoryStore.open(foreign)
    assert foreign.read_bytes() == before
    marked = tmp_path / "marked.sqlite3"
    with connected(marked) as conn:
        conn.execute("PRAGMA application_id = 1234")
    with pytest.raises(ForeignDatabaseError):
        SqliteMemoryStore.open(marked)


def test_random_bytes_are_refused_as_corrupt(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(os.urandom(4096))
    before = junk.read_bytes()
    with pytest.raises(CorruptStoreError):
        SqliteMemoryStore.open(junk)
    assert junk.read_bytes() == before


def test_damaged_pages_are_a_typed_error(store_path: Path) -> None:
    with SqliteMemoryStore.open(store_path) as store:
        store.add_many(make(f"m{i:04d}", claim="x" * 400) for i in range(200))
    data = bytearray(store_path.read_bytes())
    data[4096 * 2 : 4096 * 6] = os.urandom(4096 * 4)
    store_path.write_bytes(bytes(data))
    with pytest.raises(CorruptStoreError), SqliteMemoryStore.open(store_path) as store:
        store.check()
        store.records()


def test_a_tampered_record_body_is_a_corrupt_store(store_path: Path) -> None:
    with SqliteMemoryStore.open(store_path) as store:
        store.add(make())
    with connected(store_path) as conn:
        conn.execute("DROP TRIGGER record_revisions_no_update")
        conn.execute("UPDATE record_revisions SET body = replace(body, '\"confidence\":8000', '\"confidence\":99999')")
    with SqliteMemoryStore.open(store_path) as store:
        with pytest.raises(CorruptStoreError, match="does not match its digest"):
            store.records()
        with pytest.raises(CorruptStoreError, match="digest does not match"):
            store.check()


def test_a_newer_schema_is_refused(store_path: Path) -> None:
    SqliteMemoryStore.open(store_path).close()
    with connected(store_path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    with pytest.raises(StoreVersionError):
        SqliteMemoryStore.open(store_path)


def test_adding_is_idempotent_and_refuses_regressions_and_conflicts(store_path: Path) -> None:
    with SqliteMemoryStore.open(store_path) as store:
        first = make()
        second = review(first, 5)
        assert store.add(first) and store.add(second)
        assert not store.add(first) and not store.add(second)
        assert store.add_many([first, second]) == 0
        fresh = make("m3")
        assert store.add_many([fresh, review(fresh, 4), fresh]) == 2  # a repeat inside one batch is idempotent
        with pytest.raises(RevisionConflictError):
            store.add_many([make("m4"), make("m4", claim="same revision, other content")])
        with pytest.raises(RevisionConflictError):
            store.add(make(claim="a different first revision"))
        with pytest.raises(RevisionConflictError):
            store.add(make(revision=2, observed=5, claim="conflicting second"))  # same revision, new content
        store.add(make("m2", revision=5, observed=5))
        with pytest.raises(RevisionRegressionError):
            store.add(make("m2", revision=3, observed=3))
        with pytest.raises(StaleObservationError):
            store.add(make(revision=3, observed=5))
        assert store.latest("m1") == second
        assert store.latest("nope") is None


def test_hand_built_revisions_obey_the_lifecycle(store_path: Path) -> None:
    with SqliteMemoryStore.open(store_path) as store:
        held = quarantine(make(), 2)
        store.add_many([make(), held])
        with pytest.raises(ReleaseWithoutReviewError):
            store.add(make(revision=3, observed=3))
        store.add(review(held, 3))
        released = store.transition("m1", lambda r: release(r, 4))
        assert released.revision == 4
        store.transition("m1", lambda r: expire(r, 5))
        with pytest.raises(TerminalStateError):
            store.transition("m1", lambda r: review(r, 6))
        with pytest.raises(UnknownMemoryError):
            store.transition("absent", lambda r: r)
        with pytest.raises(MemoryStoreError):
            store.transition("m1", lambda r: make("other"))
        assert [r.revision for r in store.records()] == [1, 2, 3, 4, 5]


def test_a_failing_batch_writes_nothing(store_path: Path) -> None:
    with SqliteMemoryStore.open(store_path) as store:
        store.add(make("kept"))
        good = [make(f"new{i}") for i in range(10)]
        with pytest.raises(RevisionConflictError):
            store.add_many([*good, make("kept", claim="conflict")])
        assert [r.memory_id for r in store.records()] == ["kept"]
        with pytest.raises(MemoryStoreError):
            store.add_many([make("x"), "not a record"])  # type: ignore[list-item]
        assert store.add_many([]) == 0


def test_forget_removes_content_and_keeps_a_tombstone(store_path: Path) -> None:
    secret = "the staging password is hunter2"
    with SqliteMemoryStore.open(store_path) as store:
        first = make(claim=secret)
        store.add_many([first, review(first, 2), make("other")])
        stone = store.forget("m1", "user asked", 3)
        assert stone.revision == 2
        assert store.tombstones() == (stone,)
        assert [r.memory_id for r in store.records()] == ["other"]
        assert [r.memory_id for r in store.rebuild_index().records] == ["other"]
        with pytest.raises(ForgottenMemoryError):
            store.forget("m1", "again", 4)
        with pytest.raises(UnknownMemoryError):
            store.forget("never", "x", 4)
        with pytest.raises(ForgottenMemoryError):
            store.add(first)
        with pytest.raises(TombstoneMismatchError):
            store.add(make(revision=2, observed=2, claim="not what was forgotten"))
        survivor = make(revision=3, created=1, observed=5, claim="a corrected memory")
        assert store.add(survivor)  # newer than the tombstone: survives
        assert store.view().records[0] == survivor
        assert store.check()["integrity"] == "ok"
    raw = b"".join(p.read_bytes() for p in store_path.parent.iterdir())
    assert secret.encode() not in raw


def test_imported_tombstones_are_checked(store_path: Path) -> None:
    with SqliteMemoryStore.open(store_path) as store:
        record = make()
        store.add(record)
        with pytest.raises(TombstoneMismatchError):
            store.add_tombstone(Tombstone("m1", 1, make(claim="other").digest, 9, "x"))
        stone = forget(record, "import", 9)
        assert store.add_tombstone(stone) and not store.add_tombstone(stone)
        with pytest.raises(RevisionConflictError):
            store.add_tombstone(Tombstone("m1", 1, record.digest, 10, "different"))
        assert store.records() == ()
        with pytest.raises(TombstoneMismatchError):
            store.add(make(claim="not the forgotten one"))


def test_tables_are_append_only(store_path: Path) -> None:
    with SqliteMemoryStore.open(store_path) as store:
        store.add(make())
        store.add(make("gone"))
        store.forget("gone", "x", 5)
    with connected(store_path) as conn:
        for statement in (
            "UPDATE record_revisions SET observed = 9",
            "DELETE FROM record_revisions WHERE memory_id = 'm1'",
            "UPDATE tombstones SET reason = 'edited'",
            "DELETE FROM tombstones",
        ):
            with pytest.raises(sqlite3.IntegrityError, match="lychd memory"):
                conn.execute(statement)


def test_a_locked_store_is_a_typed_error_and_nothing_is_half_written(store_path: Path) -> None:
    SqliteMemoryStore.open(store_path).close()
    holder = sqlite3.connect(store_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with SqliteMemoryStore.open(store_path, busy_timeout_ms=100) as store:
            with pytest.raises(StoreLockedError):
                store.add_many([make("a"), make("b")])
            with pytest.raises(StoreLockedError):
                store.forget("a", "x", 9)
            assert store.records() == ()  # readers are not blocked in WAL mode
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with SqliteMemoryStore.open(store_path) as store:
        assert store.records() == ()
        assert store.add_many([make("a"), make("b")]) == 2


def test_query_uses_a_cached_index_refreshed_after_other_writers(store_path: Path) -> None:
    query = MemoryQuery(scope=MemoryScope(project="p"), now=10)
    with SqliteMemoryStore.open(store_path) as reader, SqliteMemoryStore.open(store_path) as writer:
        writer.add(make("a"))
        assert [r.memory_id for r in reader.query(query).selected] == ["a"]
        assert reader.index() is reader.index()
        writer.add(make("b"))
        assert [r.memory_id for r in reader.query(query).selected] == ["a", "b"]
        reader.add(make("c"))
        plan = reader.query(query)
        assert [r.memory_id for r in plan.selected] == ["a", "b", "c"]
        rebuilt = MemoryIndex.build(reader.records(), reader.tombstones())
        assert reader.rebuild_index().digest == rebuilt.digest
        stats = reader.stats()
        assert (stats["active"], stats["revisions"], stats["tombstones"]) == (3, 3, 0)
        assert stats["index_digest"] == rebuilt.digest and stats["last_observation"] == 1
