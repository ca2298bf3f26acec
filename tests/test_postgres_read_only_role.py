"""A SELECT-only PostgreSQL role opens an existing projection cache read-only, on the real test server.

Opening used to run ``CREATE SCHEMA IF NOT EXISTS``, which PostgreSQL checks against the
database's CREATE privilege even when the schema exists, so such a role could not open the
cache at all. Now it is served hits and stores nothing; a missing schema is still a typed
refusal for it.
"""

from __future__ import annotations

import json
import os

import psycopg
import pytest

from lychd_core.errors import ProjectionCacheError
from lychd_core.memory.codec import parse_records_json
from lychd_core.stores.postgres.cache import PostgresProjectionCache
from lychd_core.stores.postgres.memory import PostgresMemoryStore
from lychd_core.stores.sqlite.cache import CacheKey
from lychd_core.testing.postgres import USER, PostgresServer
from lychd_core.testing.store_contract import CACHE_FACTS, CACHE_KEY, CACHE_OUTCOME
from tests.support.hostile import example_records

KEY = os.urandom(32)


def _reader(server: PostgresServer, schema: str) -> str:
    """A login role that may only read ``schema``; its DSN."""
    role = f"{schema}_reader"
    with psycopg.connect(server.dsn(), autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
        conn.execute("REVOKE CREATE ON DATABASE postgres FROM PUBLIC")
        conn.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    return server.dsn().replace(f"user={USER}", f"user={role}")


def test_a_select_only_role_reads_the_cache_and_writes_nothing(
    lychd_postgresql: PostgresServer, lychd_pg_schema: str
) -> None:
    owner = PostgresProjectionCache(lychd_postgresql.dsn(), schema=lychd_pg_schema, key_path="unused", key=KEY)
    owner.put(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)
    assert owner.count() == 1 and not owner.read_only
    reader = PostgresProjectionCache(_reader(lychd_postgresql, lychd_pg_schema), schema=lychd_pg_schema,
                                     key_path="unused", key=KEY)  # fmt: skip
    try:
        found = reader.get(CACHE_KEY)
        assert found is not None and found[0] == CACHE_OUTCOME and reader.read_only
        other = CacheKey("sha256:" + "1" * 64, *CACHE_KEY.as_list()[1:])
        reader.put(other, CACHE_OUTCOME, CACHE_FACTS)  # not remembered, not an error
        reader.remember_files("scope", [])
        assert reader.get(other) is None and owner.count() == 1
    finally:
        reader.close()
        owner.close()


def test_a_select_only_role_cannot_create_a_missing_cache(
    lychd_postgresql: PostgresServer, lychd_pg_schema: str
) -> None:
    with psycopg.connect(lychd_postgresql.dsn(), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {lychd_pg_schema}_other")
    dsn = _reader(lychd_postgresql, f"{lychd_pg_schema}_other")
    reader = PostgresProjectionCache(dsn, schema=lychd_pg_schema, key_path="unused", key=KEY)
    with pytest.raises(ProjectionCacheError, match="permission denied"):
        reader.get(CACHE_KEY)
    reader.close()


def test_a_select_only_role_queries_the_memory_store(lychd_postgresql: PostgresServer, lychd_pg_schema: str) -> None:
    records = parse_records_json(json.dumps(example_records()))
    owner = PostgresMemoryStore.open(lychd_postgresql.dsn(), schema=lychd_pg_schema)
    assert owner.add_many(records) == len(records)
    owner.close()
    reader = PostgresMemoryStore.open(_reader(lychd_postgresql, lychd_pg_schema), schema=lychd_pg_schema, create=False)
    try:
        assert {r.identity() for r in reader.records()} == {r.identity() for r in records}
    finally:
        reader.close()
