"""The store contract kit over both backends: SQLite files and a real PostgreSQL server."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from lychd_core.digests import sha256_digest
from lychd_core.errors import ForeignDatabaseError, ProjectionCacheError, StoreConnectionError, StoreVersionError
from lychd_core.projection.cache_protocol import ProjectionCacheStore
from lychd_core.projection.fingerprints import FileRecord
from lychd_core.projection.media import detect_media_type
from lychd_core.stores.postgres.cache import PostgresProjectionCache
from lychd_core.stores.postgres.memory import PostgresMemoryStore
from lychd_core.stores.postgres.schema import PG_MIGRATIONS
from lychd_core.stores.sqlite import SqliteMemoryStore
from lychd_core.stores.sqlite.cache import ProjectionCache
from lychd_core.stores.sqlite.memory_schema import LATEST_VERSION
from lychd_core.testing.postgres import PostgresServer
from lychd_core.testing.store_contract import (
    CACHE_FACTS,
    CACHE_KEY,
    CACHE_OUTCOME,
    MemoryStoreContract,
    Opener,
    ProjectionCacheStoreContract,
    contract_record,
)
from tests.support.sqlite_files import connected


class TestSqliteMemoryStore(MemoryStoreContract):
    @pytest.fixture
    def open_store(self, tmp_path: Path) -> Opener:
        self.path = tmp_path / "state" / "memory.sqlite3"
        return lambda create: SqliteMemoryStore.open(self.path, create=create)

    def tamper_body(self, memory_id: str, revision: int, body: str) -> None:
        with connected(self.path) as conn:
            conn.execute("DROP TRIGGER IF EXISTS record_revisions_no_update")
            conn.execute(
                "UPDATE record_revisions SET body = ? WHERE memory_id = ? AND revision = ?", (body, memory_id, revision)
            )


class TestPostgresMemoryStore(MemoryStoreContract):
    @pytest.fixture
    def open_store(self, lychd_postgresql: PostgresServer, lychd_pg_schema: str) -> Opener:
        self.dsn, self.schema = lychd_postgresql.dsn(), lychd_pg_schema
        return lambda create: PostgresMemoryStore.open(self.dsn, schema=self.schema, create=create)

    def tamper_body(self, memory_id: str, revision: int, body: str) -> None:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(f"SET search_path TO {self.schema}")
            conn.execute("ALTER TABLE record_revisions DISABLE TRIGGER USER")
            conn.execute(
                "UPDATE record_revisions SET body = %s WHERE memory_id = %s AND revision = %s",
                (body, memory_id, revision),
            )


class TestSqliteProjectionCache(ProjectionCacheStoreContract):
    @pytest.fixture
    def cache(self, tmp_path: Path) -> ProjectionCacheStore:
        return ProjectionCache(tmp_path / "p.sqlite3")

    @pytest.fixture
    def other_key_cache(self, tmp_path: Path) -> ProjectionCacheStore:
        return ProjectionCache(tmp_path / "p.sqlite3", key_path=tmp_path / "other.key")

    def read_entry(self, cache: ProjectionCacheStore) -> tuple[str, str, str]:
        assert isinstance(cache, ProjectionCache)
        with connected(cache.path) as conn:
            row = conn.execute("SELECT payload, facts, entry_digest FROM projections").fetchone()
        return row[0], row[1], row[2]

    def rewrite_entry(self, cache: ProjectionCacheStore, payload: str, facts: str, tag: str) -> None:
        assert isinstance(cache, ProjectionCache)
        with connected(cache.path) as conn:
            conn.execute("UPDATE projections SET payload = ?, facts = ?, entry_digest = ?", (payload, facts, tag))

    def rewrite_counts(self, cache: ProjectionCacheStore, count: int) -> None:
        assert isinstance(cache, ProjectionCache)
        with connected(cache.path) as conn:
            conn.execute("UPDATE token_counts SET count = ?", (count,))

    def rewrite_count_records(self, cache: ProjectionCacheStore, counts: bytes) -> None:
        assert isinstance(cache, ProjectionCache)
        with connected(cache.path) as conn:
            conn.execute("UPDATE count_records SET counts = ?", (counts,))

    def fail_deletes_from(self, cache: ProjectionCacheStore, table: str) -> None:
        assert isinstance(cache, ProjectionCache)
        with connected(cache.path) as conn:
            conn.execute(f"CREATE TRIGGER fail_{table} BEFORE DELETE ON {table} BEGIN SELECT RAISE(ABORT, 'no'); END")


class TestPostgresProjectionCache(ProjectionCacheStoreContract):
    @pytest.fixture
    def cache(self, lychd_postgresql: PostgresServer, lychd_pg_schema: str, tmp_path: Path) -> ProjectionCacheStore:
        self.dsn, self.schema = lychd_postgresql.dsn(), lychd_pg_schema
        return PostgresProjectionCache(self.dsn, schema=self.schema, key_path=tmp_path / "cache.key")

    @pytest.fixture
    def other_key_cache(self, cache: ProjectionCacheStore, tmp_path: Path) -> ProjectionCacheStore:
        return PostgresProjectionCache(self.dsn, schema=self.schema, key_path=tmp_path / "other.key")

    def read_entry(self, cache: ProjectionCacheStore) -> tuple[str, str, str]:
        with psycopg.connect(self.dsn) as conn:
            row = conn.execute(f"SELECT payload, facts, entry_mac FROM {self.schema}.projections").fetchone()
        assert row is not None
        return row[0], row[1], row[2]

    def rewrite_entry(self, cache: ProjectionCacheStore, payload: str, facts: str, tag: str) -> None:
        with psycopg.connect(self.dsn) as conn:
            conn.execute(
                f"UPDATE {self.schema}.projections SET payload = %s, facts = %s, entry_mac = %s", (payload, facts, tag)
            )

    def rewrite_counts(self, cache: ProjectionCacheStore, count: int) -> None:
        with psycopg.connect(self.dsn) as conn:
            conn.execute(f"UPDATE {self.schema}.token_counts SET count = %s", (count,))

    def rewrite_count_records(self, cache: ProjectionCacheStore, counts: bytes) -> None:
        with psycopg.connect(self.dsn) as conn:
            conn.execute(f"UPDATE {self.schema}.count_records SET counts = %s", (counts,))

    def fail_deletes_from(self, cache: ProjectionCacheStore, table: str) -> None:
        _sql(
            self.dsn,
            f"CREATE FUNCTION {self.schema}.fail() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE 'no'; END $$",
            f"CREATE TRIGGER fail BEFORE DELETE ON {self.schema}.{table} "
            f"FOR EACH ROW EXECUTE FUNCTION {self.schema}.fail()",
        )


def _sql(dsn: str, *statements: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def test_postgresql_refuses_foreign_and_newer_schemas_untouched(
    lychd_postgresql: PostgresServer, lychd_pg_schema: str
) -> None:
    dsn, schema = lychd_postgresql.dsn(), lychd_pg_schema
    _sql(dsn, f"CREATE SCHEMA {schema}", f"CREATE TABLE {schema}.record_revisions (id int)")
    with pytest.raises(ForeignDatabaseError, match="not a lychd memory store"):
        PostgresMemoryStore.open(dsn, schema=schema)
    with pytest.raises(ProjectionCacheError, match="no lychd cache_meta"):
        _sql(dsn, f"CREATE TABLE {schema}.projections (id int)")
        PostgresProjectionCache(dsn, schema=schema, key=b"k" * 32, key_path=Path("unused.key")).count()
    _sql(dsn, f"DROP TABLE {schema}.record_revisions")
    PostgresMemoryStore.open(dsn, schema=f"{schema}_new").close()
    _sql(dsn, f"UPDATE {schema}_new.memory_meta SET value = '99' WHERE key = 'version'")
    with pytest.raises(StoreVersionError, match="schema version 99"):
        PostgresMemoryStore.open(dsn, schema=f"{schema}_new")
    _sql(dsn, f"UPDATE {schema}_new.memory_meta SET value = 'someone-else' WHERE key = 'format'")
    with pytest.raises(ForeignDatabaseError, match="someone-else"):
        PostgresMemoryStore.open(dsn, schema=f"{schema}_new", create=False)
    with psycopg.connect(dsn) as conn:
        assert conn.execute(f"SELECT count(*) FROM {schema}.projections").fetchone() == (0,)


def test_an_older_postgresql_schema_is_migrated_once(lychd_postgresql: PostgresServer, lychd_pg_schema: str) -> None:
    dsn, schema = lychd_postgresql.dsn(), lychd_pg_schema
    _sql(dsn, f"CREATE SCHEMA {schema}", f"SET search_path TO {schema}")
    with psycopg.connect(dsn) as conn:
        conn.execute(f"SET search_path TO {schema}")
        for statement in PG_MIGRATIONS[0].statements:
            conn.execute(statement)
        conn.execute("UPDATE memory_meta SET value = '1' WHERE key = 'version'")
    with PostgresMemoryStore.open(dsn, schema=schema, create=False) as store:
        assert store.schema_version == LATEST_VERSION
        store.add(contract_record("kept"))
    with psycopg.connect(dsn, autocommit=True) as conn, pytest.raises(psycopg.errors.RaiseException):
        conn.execute(f"UPDATE {schema}.record_revisions SET observed = 9")  # the migrated guards hold


def test_a_refused_connection_is_a_typed_error(tmp_path: Path) -> None:
    dsn = f"host={tmp_path} port=1 user=nobody dbname=none"
    with pytest.raises(StoreConnectionError, match="connection was lost or refused"):
        PostgresMemoryStore.open(dsn, schema="x")
    with pytest.raises(ProjectionCacheError, match="connection was lost or refused"):
        PostgresProjectionCache(dsn, key=b"k" * 32, key_path=Path("unused.key")).count()


def test_an_edited_postgresql_file_record_is_a_miss(
    lychd_postgresql: PostgresServer, lychd_pg_schema: str, tmp_path: Path
) -> None:
    dsn, schema = lychd_postgresql.dsn(), lychd_pg_schema
    cache = PostgresProjectionCache(dsn, schema=schema, key_path=tmp_path / "cache.key")
    decision = detect_media_type("a.py", b"x = 1\n")
    record = FileRecord("a.py", (1, 2, 6, 10, 11), sha256_digest(b"x = 1\n"), "", "detector", decision)
    cache.remember_files("host:/w", [record])
    assert cache.files("host:/w", ["a.py"]) == {"a.py": record}
    _sql(dsn, f"UPDATE {schema}.file_records SET record = replace(record, 'text/x-python', 'text/plain')")
    assert cache.files("host:/w", ["a.py"]) == {}


def test_a_version_2_postgresql_cache_gains_file_records_and_keeps_its_entries(
    lychd_postgresql: PostgresServer, lychd_pg_schema: str, tmp_path: Path
) -> None:
    dsn, schema = lychd_postgresql.dsn(), lychd_pg_schema
    cache = PostgresProjectionCache(dsn, schema=schema, key_path=tmp_path / "cache.key")
    cache.put(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)
    cache.close()
    _sql(dsn, f"DROP TABLE {schema}.file_records", f"UPDATE {schema}.cache_meta SET value = '2' WHERE key = 'version'")
    reopened = PostgresProjectionCache(dsn, schema=schema, key_path=tmp_path / "cache.key")
    assert reopened.get(CACHE_KEY) == (CACHE_OUTCOME, CACHE_FACTS)
    decision = detect_media_type("a.py", b"x = 1\n")
    record = FileRecord("a.py", (1, 2, 6, 10, 11), sha256_digest(b"x = 1\n"), "", "detector", decision)
    reopened.remember_files("host:/w", [record])
    assert reopened.files("host:/w", ["a.py"]) == {"a.py": record}
    with psycopg.connect(dsn) as conn:
        assert conn.execute(f"SELECT value FROM {schema}.cache_meta WHERE key = 'version'").fetchone() == (
            "5",
        )  # 2 -> 3 -> 4 -> 5
