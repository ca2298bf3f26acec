"""The PostgreSQL memory store's schema: the same versions as the SQLite migrations.

Tables live in one database schema (``search_path`` is set on every pooled connection).
``memory_meta`` names the format and the schema version, so a foreign schema (tables of
ours without the format row, or another format) is refused and a newer version is
refused rather than misread. Record revisions and tombstones are append-only, enforced by
triggers exactly as in SQLite: a revision leaves only under a dominating tombstone.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from lychd_core.memory.errors import ForeignDatabaseError, StoreMissingError, StoreVersionError
from lychd_core.stores.postgres.database import lock_space
from lychd_core.stores.sqlite.memory_schema import FORMAT, LATEST_VERSION, Migration

PG_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "meta, append-only record revisions and tombstones, a write generation",
        (
            "CREATE TABLE memory_meta (key text PRIMARY KEY, value text NOT NULL)",
            f"INSERT INTO memory_meta (key, value) VALUES ('format', '{FORMAT}'), ('version', '0')",
            """CREATE TABLE record_revisions (
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                memory_id text COLLATE "C" NOT NULL,
                revision bigint NOT NULL CHECK (revision > 0),
                digest text NOT NULL,
                observed bigint NOT NULL,
                body text NOT NULL,
                UNIQUE (memory_id, revision)
            )""",
            """CREATE TABLE tombstones (
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                memory_id text COLLATE "C" NOT NULL,
                revision bigint NOT NULL CHECK (revision > 0),
                prior_digest text NOT NULL,
                deleted_at bigint NOT NULL,
                reason text NOT NULL,
                UNIQUE (memory_id, revision)
            )""",
            "CREATE INDEX record_revisions_observed ON record_revisions (observed)",
            "CREATE INDEX tombstones_deleted_at ON tombstones (deleted_at)",
            "CREATE TABLE memory_generation (id integer PRIMARY KEY CHECK (id = 1), n bigint NOT NULL)",
            "INSERT INTO memory_generation (id, n) VALUES (1, 0)",
        ),
    ),
    Migration(
        2,
        "append-only guards: no updates; a record revision leaves only under a dominating tombstone",
        (
            """CREATE FUNCTION lychd_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
               BEGIN RAISE EXCEPTION 'lychd memory: % rows are append-only', TG_TABLE_NAME; END $$""",
            """CREATE FUNCTION lychd_forget_only() RETURNS trigger LANGUAGE plpgsql AS $$
               BEGIN
                   IF NOT EXISTS (SELECT 1 FROM tombstones t
                                  WHERE t.memory_id = OLD.memory_id AND t.revision >= OLD.revision) THEN
                       RAISE EXCEPTION 'lychd memory: only a dominating tombstone removes a record';
                   END IF;
                   RETURN OLD;
               END $$""",
            """CREATE TRIGGER record_revisions_no_update BEFORE UPDATE ON record_revisions
               FOR EACH ROW EXECUTE FUNCTION lychd_append_only()""",
            """CREATE TRIGGER record_revisions_forget_only BEFORE DELETE ON record_revisions
               FOR EACH ROW EXECUTE FUNCTION lychd_forget_only()""",
            """CREATE TRIGGER tombstones_no_update BEFORE UPDATE OR DELETE ON tombstones
               FOR EACH ROW EXECUTE FUNCTION lychd_append_only()""",
        ),
    ),
)
assert PG_MIGRATIONS[-1].version == LATEST_VERSION, "the PostgreSQL schema follows the SQLite versions"


def _exists(conn: psycopg.Connection[Any], schema: str, table: str) -> bool:
    row = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f'"{schema}".{table}',)).fetchone()
    return bool(row and row[0])


def prepare_schema(conn: psycopg.Connection[Any], schema: str, where: str, *, create: bool) -> int:
    """Check identity, then create or migrate under an advisory lock; returns the schema version.

    Runs in the caller's transaction on a direct connection; nothing is written to a
    foreign, newer or (without ``create``) missing store.
    """
    conn.execute("SELECT pg_advisory_xact_lock(%s, 1)", (lock_space(schema),))
    conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
    if not _exists(conn, schema, "memory_meta"):
        if _exists(conn, schema, "record_revisions") or _exists(conn, schema, "tombstones"):
            raise ForeignDatabaseError(
                f"{where} holds record_revisions/tombstones tables but no lychd memory_meta; it is not a lychd "
                "memory store and was left untouched. Name another schema_name"
            )
        if not create:
            raise StoreMissingError(f"no memory store in {where}; add a memory first (lychd memory add FILE.json)")
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        current = 0
    else:
        rows = dict(conn.execute("SELECT key, value FROM memory_meta").fetchall())
        if rows.get("format") != FORMAT or not str(rows.get("version", "")).isdigit():
            raise ForeignDatabaseError(
                f"{where}: memory_meta names format {rows.get('format')!r}, not {FORMAT!r}; left untouched"
            )
        current = int(rows["version"])
        if current > LATEST_VERSION:
            raise StoreVersionError(
                f"memory store {where} has schema version {current}; this lychd-core reads up to "
                f"{LATEST_VERSION}. Upgrade lychd-core"
            )
    for migration in PG_MIGRATIONS:
        if current < migration.version:
            for statement in migration.statements:
                conn.execute(statement)
    if current < LATEST_VERSION:
        conn.execute("UPDATE memory_meta SET value = %s WHERE key = 'version'", (str(LATEST_VERSION),))
    return LATEST_VERSION
