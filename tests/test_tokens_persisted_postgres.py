"""Token counts in the PostgreSQL projection cache: schema 3 -> 4 adds the rows, 4 -> 5 count records.

The round trip, per-counter keys and the refusal of an edited count are in the store
contract (``tests/test_store_contract.py``), run against the real test server.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import psycopg
import pytest

from lychd_core.assembly import ContextOrchestrator
from lychd_core.config import default_config, parse_config
from lychd_core.digests import text_digest
from lychd_core.projection.cache_counts import set_digest
from lychd_core.stores.postgres.cache import VERSION, PostgresProjectionCache
from lychd_core.testing.postgres import PostgresServer
from lychd_core.testing.store_contract import CACHE_FACTS, CACHE_KEY, CACHE_OUTCOME
from tests.test_postgres_read_only_role import _reader
from tests.test_tokens_persisted import codex_texts, estimates, refs, workspace

KEY = os.urandom(32)
DIGEST = text_digest("hello\nworld")


def _as_schema_3(dsn: str, schema: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP TABLE {schema}.token_counts")
        conn.execute(f"UPDATE {schema}.cache_meta SET value = '3' WHERE key = 'version'")


def test_a_schema_3_cache_is_served_read_only_and_migrated_by_a_writer(
    lychd_postgresql: PostgresServer, lychd_pg_schema: str
) -> None:
    dsn, schema = lychd_postgresql.dsn(), lychd_pg_schema
    owner = PostgresProjectionCache(dsn, schema=schema, key_path="unused", key=KEY)
    owner.put(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)
    owner.close()
    _as_schema_3(dsn, schema)
    reader = PostgresProjectionCache(_reader(lychd_postgresql, schema), schema=schema, key_path="unused", key=KEY)
    try:  # a role that may not migrate still gets its entries; counts simply miss
        assert reader.get(CACHE_KEY) is not None and reader.read_only
        reader.remember_token_counts("c@1 t o", [(DIGEST, 3)])
        assert reader.token_counts("c@1 t o", [DIGEST]) == {}
    finally:
        reader.close()
    writer = PostgresProjectionCache(dsn, schema=schema, key_path="unused", key=KEY)
    try:
        assert writer.get(CACHE_KEY) is not None  # migrated in place: the entry survives
        writer.remember_token_counts("c@1 t o", [(DIGEST, 3)])
        assert writer.token_counts("c@1 t o", [DIGEST]) == {DIGEST: 3}
        with psycopg.connect(dsn) as conn:
            row = conn.execute(f"SELECT value FROM {schema}.cache_meta WHERE key = 'version'").fetchone()
        assert row is not None and row[0] == str(VERSION) == "5"
    finally:
        writer.close()


def test_assembly_over_a_postgresql_cache_reads_exact_counts_on_the_second_run(
    tmp_path: Path, lychd_postgresql: PostgresServer, lychd_pg_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: `[tokens] counter = "o200k_base@1"` over a PostgreSQL projection cache."""
    monkeypatch.setenv("LYCHD_TEST_DSN", lychd_postgresql.dsn())
    data = default_config().model_dump(mode="python")
    data["tokens"] = {"counter": "o200k_base@1"}
    data["stores"]["projection_cache"] = {
        "backend": "postgresql",
        "dsn_env": "LYCHD_TEST_DSN",
        "schema_name": lychd_pg_schema,
    }
    config = parse_config(data, "test")
    root = workspace(tmp_path)

    def run() -> tuple[Any, Any]:
        with ContextOrchestrator(config, workspace=root) as orchestrator:
            assembled = orchestrator.assemble(run_id="r", session_id="s", query="what does alpha return?", codex=refs())
            return assembled, orchestrator.token_counter().stats()

    cold, cold_stats = run()
    warm, warm_stats = run()
    assert len(codex_texts(warm)) == 2 and cold_stats.stored == 0
    assert warm_stats.stored == 2  # both projected texts' counts came from PostgreSQL, none recounted
    assert warm.prefix_digest == cold.prefix_digest
    assert estimates(warm) == estimates(cold)
    with psycopg.connect(lychd_postgresql.dsn()) as conn:
        row = conn.execute(f"SELECT count(*) FROM {lychd_pg_schema}.token_counts").fetchone()
    assert row is not None and row[0] >= 2
    with psycopg.connect(lychd_postgresql.dsn()) as conn:
        row = conn.execute(f"SELECT count(*) FROM {lychd_pg_schema}.count_records").fetchone()
    assert row is not None and row[0] == 1  # the warm run was served from this one record


def _as_schema_4(dsn: str, schema: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP TABLE {schema}.count_records")
        for table in ("projections", "media_decisions", "file_records", "token_counts"):
            conn.execute(f"ALTER TABLE {schema}.{table} DROP COLUMN written")
        conn.execute(f"UPDATE {schema}.cache_meta SET value = '4' WHERE key = 'version'")


def test_schema_4_to_5_keeps_entries_and_counts_and_grants_the_reader_the_count_records(
    lychd_postgresql: PostgresServer, lychd_pg_schema: str
) -> None:
    dsn, schema, counter = lychd_postgresql.dsn(), lychd_pg_schema, "c@1 t o"
    owner = PostgresProjectionCache(dsn, schema=schema, key_path="unused", key=KEY)
    owner.put(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)
    owner.remember_token_counts(counter, [(DIGEST, 3)])
    owner.close()
    _as_schema_4(dsn, schema)
    reader_dsn = _reader(lychd_postgresql, schema)  # granted SELECT on the schema-4 tables only
    reader = PostgresProjectionCache(reader_dsn, schema=schema, key_path="unused", key=KEY)
    try:  # served as schema 4: entries and rows, no records, nothing stored
        assert reader.get(CACHE_KEY) is not None and reader.read_only and reader.version == 4
        assert reader.token_counts(counter, [DIGEST]) == {DIGEST: 3}
        reader.remember_count_record(counter, set_digest([DIGEST]), [3])
        assert reader.count_record(counter, set_digest([DIGEST])) is None
    finally:
        reader.close()
    writer = PostgresProjectionCache(dsn, schema=schema, key_path="unused", key=KEY)
    try:
        assert writer.get(CACHE_KEY) is not None and writer.token_counts(counter, [DIGEST]) == {DIGEST: 3}
        writer.remember_count_record(counter, set_digest([DIGEST]), [3])
    finally:
        writer.close()
    reader = PostgresProjectionCache(reader_dsn, schema=schema, key_path="unused", key=KEY)
    try:  # the migration granted the reader what it holds on projections: it reads the new table
        assert reader.get(CACHE_KEY) is not None and reader.version == 5
        assert reader.count_record(counter, set_digest([DIGEST])) == [3] and reader.read_only
    finally:
        reader.close()
