"""The PostgreSQL projection cache's schema: create it, or migrate an older one in place.

Versions: 2 entries and media decisions; 3 file records; 4 token counts; 5 count records
and a ``written`` time on every row (what ``lychd cache prune --older-than`` reads). Each
migration only adds (tables, columns with a default), so entries stay valid and warm.
Tables a migration creates are owned by the migrating role, which grants on them what
every other role holds on ``projections``: a SELECT-only role set up for schema 4 can read
the count records of schema 5 without another ``GRANT``.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from lychd_core.errors import ProjectionCacheError

FORMAT = "lychd-projection-cache"
VERSION = 5  # 3: file records (stat fingerprints); 4: token counts; 5: count records and written times
COUNTS_FROM = 4  # the first version with the token_counts table
RECORDS_FROM = 5  # the first version with count_records and written times
TABLES = ("projections", "media_decisions", "file_records", "token_counts", "count_records")
STAMPED = TABLES[:4]  # the tables that gained ``written`` in schema 5

_FILE_RECORDS = """CREATE TABLE IF NOT EXISTS file_records (
        scope text NOT NULL, path text NOT NULL, record text NOT NULL, entry_mac text NOT NULL,
        written bigint NOT NULL DEFAULT 0, PRIMARY KEY (scope, path)
    )"""

_TOKEN_COUNTS = """CREATE TABLE IF NOT EXISTS token_counts (
        text_digest text NOT NULL, counter text NOT NULL, count bigint NOT NULL, entry_mac text NOT NULL,
        written bigint NOT NULL DEFAULT 0, PRIMARY KEY (text_digest, counter)
    )"""

_COUNT_RECORDS = """CREATE TABLE IF NOT EXISTS count_records (
        counter text NOT NULL, set_digest text NOT NULL, written bigint NOT NULL, entry_mac text NOT NULL,
        counts bytea NOT NULL, PRIMARY KEY (counter, set_digest)
    )"""

CREATE = (
    "CREATE TABLE cache_meta (key text PRIMARY KEY, value text NOT NULL)",
    f"INSERT INTO cache_meta (key, value) VALUES ('format', '{FORMAT}'), ('version', '{VERSION}')",
    """CREATE TABLE projections (
        source_digest text NOT NULL, profile text NOT NULL, revision bigint NOT NULL,
        options_digest text NOT NULL, parser_version text NOT NULL,
        payload text NOT NULL, facts text NOT NULL, entry_mac text NOT NULL, written bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (source_digest, profile, revision, options_digest, parser_version)
    )""",
    """CREATE TABLE media_decisions (
        source_digest text NOT NULL, file_name text NOT NULL, pinned text NOT NULL, detector text NOT NULL,
        decision text NOT NULL, entry_mac text NOT NULL, written bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (source_digest, file_name, pinned, detector)
    )""",
    _FILE_RECORDS,
    _TOKEN_COUNTS,
    _COUNT_RECORDS,
)


def may_write(conn: psycopg.Connection[Any]) -> bool:
    """Whether this role may insert and update every cache table (a SELECT-only role may not)."""
    row = conn.execute(
        "SELECT bool_and(has_table_privilege(t, 'INSERT') AND has_table_privilege(t, 'UPDATE')) "
        "FROM unnest(%s::text[]) AS t WHERE to_regclass(t) IS NOT NULL",
        (list(TABLES),),
    ).fetchone()
    return bool(row and row[0])


def may_delete(conn: psycopg.Connection[Any]) -> bool:
    """Whether this role may delete from every cache table (``lychd cache prune``)."""
    row = conn.execute(
        "SELECT bool_and(has_table_privilege(t, 'DELETE')) FROM unnest(%s::text[]) AS t",
        (list(TABLES),),
    ).fetchone()
    return bool(row and row[0])


def migrate(conn: psycopg.Connection[Any], version: int) -> None:
    """Bring a cache of ``version`` (2-4) to :data:`VERSION`, in the caller's transaction."""
    conn.execute(_FILE_RECORDS)
    conn.execute(_TOKEN_COUNTS)
    if version < RECORDS_FROM:
        for table in STAMPED:
            conn.execute(sql.SQL("ALTER TABLE {} ADD COLUMN IF NOT EXISTS written bigint NOT NULL DEFAULT 0").format(
                sql.Identifier(table)
            ))  # fmt: skip
        conn.execute(_COUNT_RECORDS)
        _grant_as_on_projections(conn, ("count_records", "file_records", "token_counts"))
    conn.execute("UPDATE cache_meta SET value = %s WHERE key = 'version'", (str(VERSION),))


def _grant_as_on_projections(conn: psycopg.Connection[Any], tables: tuple[str, ...]) -> None:
    """Give every other role (and PUBLIC) on ``tables`` the privileges it holds on ``projections``."""
    rows = conn.execute(
        "SELECT DISTINCT CASE WHEN a.grantee = 0 THEN '' ELSE pg_get_userbyid(a.grantee) END, a.privilege_type "
        "FROM pg_class c, aclexplode(c.relacl) a WHERE c.oid = 'projections'::regclass AND a.grantee <> c.relowner"
    ).fetchall()
    for grantee, privilege in rows:
        if privilege not in ("SELECT", "INSERT", "UPDATE", "DELETE"):
            continue
        target = sql.SQL("PUBLIC") if grantee == "" else sql.Identifier(grantee)
        for table in tables:
            owned = conn.execute(
                "SELECT pg_get_userbyid(relowner) = current_user FROM pg_class WHERE oid = to_regclass(%s)", (table,)
            ).fetchone()
            if owned and owned[0]:  # a table another role owns keeps the grants its owner gave
                conn.execute(sql.SQL("GRANT {} ON {} TO {}").format(sql.SQL(privilege), sql.Identifier(table), target))


def check_meta(rows: dict[str, str], where: str) -> int:
    """The version ``cache_meta`` names; a foreign format or a newer version is refused."""
    if rows.get("format") != FORMAT:
        raise ProjectionCacheError(f"{where}: cache_meta names format {rows.get('format')!r}; left untouched")
    version = int(rows.get("version", "0"))
    if version > VERSION:
        raise ProjectionCacheError(
            f"{where} was written by a newer lychd (cache schema {rows['version']}, this one reads {VERSION})"
        )
    return version
