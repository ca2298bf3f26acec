"""``lychd cache prune``: the declared age policy, dry runs, bad inputs, read-only caches, kills.

The per-backend behaviour (exactly the rows stored before the cutoff go; a failure part way
removes nothing) is in the store contract, run on SQLite and PostgreSQL
(``tests/test_store_contract.py``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from lychd_core.errors import CachePruneInputError, ReadOnlyCacheError
from lychd_core.projection.cache_prune import PRUNED_TABLES, cutoff_of, parse_age
from lychd_core.stores.postgres.cache import PostgresProjectionCache
from lychd_core.stores.sqlite import cache_file
from lychd_core.stores.sqlite.cache import ProjectionCache
from lychd_core.testing.postgres import PostgresServer
from lychd_core.testing.store_contract import CACHE_FACTS, CACHE_KEY, CACHE_OUTCOME
from tests.support.hostile import run_captured
from tests.support.sqlite_files import connected
from tests.test_postgres_read_only_role import _reader

KEY = os.urandom(32)


@pytest.mark.parametrize(("age", "seconds"), [("0s", 0), ("45s", 45), ("90m", 5400), ("12h", 43200), ("30d", 2592000),
                                              ("2w", 1209600), (" 7d ", 604800)])  # fmt: skip
def test_ages_are_whole_numbers_with_one_unit(age: str, seconds: int) -> None:
    assert parse_age(age) == seconds
    assert cutoff_of(seconds, now_ns=10**19) == 10**19 - seconds * 10**9


@pytest.mark.parametrize("age", ["", "30", "d", "-1d", "1.5d", "30 d", "30D", "3x", "1d2h", "99999999999w", "٣d"])
def test_a_bad_age_is_a_typed_refusal_naming_the_form(age: str) -> None:
    with pytest.raises(CachePruneInputError, match="--older-than"):
        parse_age(age)


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("def alpha():\n    return 1\n")
    assert run_captured(["project", "a.py", "--workspace", str(tmp_path)]).code == 0
    return tmp_path


def _rows(path: Path) -> dict[str, int]:
    with connected(path) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in PRUNED_TABLES}


def test_the_cli_dry_run_reports_and_keeps_then_prune_removes(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    path = root / ".lychd" / "projections.sqlite3"
    before = _rows(path)
    assert before["projections"] >= 1
    kept = json.loads(run_captured(["cache", "prune", "--older-than", "1d", "--workspace", str(root), "--json"]).out)
    assert kept["removed"] == 0 and kept["older_than_s"] == 86400 and _rows(path) == before
    dry = run_captured(["cache", "prune", "--older-than", "0s", "--dry-run", "--workspace", str(root), "--json"])
    report = json.loads(dry.out)
    assert report["dry_run"] and report["removed"] == sum(before.values()) and _rows(path) == before
    assert {name: counts["removed"] for name, counts in report["tables"].items()} == before
    text = run_captured(["cache", "prune", "--older-than", "0s", "--workspace", str(root)])
    assert text.code == 0 and f"removed {sum(before.values())} row(s)" in text.out
    assert set(_rows(path).values()) == {0}
    again = run_captured(["project", "a.py", "--workspace", str(root)])  # a pruned cache is a valid, cold one
    assert again.code == 0 and _rows(path)["projections"] == before["projections"]


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["cache", "prune"], 2, "--older-than"),
        (["cache", "prune", "--older-than", "soon"], 1, "CachePruneInputError"),
        (["cache", "prune", "--older-than=-3d"], 1, "CachePruneInputError"),
        (["cache"], 2, "ACTION"),
        (["cache", "vacuum"], 2, "invalid choice"),
    ],
)
def test_bad_invocations_are_refused_without_touching_the_cache(
    tmp_path: Path, argv: list[str], code: int, message: str
) -> None:
    root = _workspace(tmp_path)
    before = _rows(root / ".lychd" / "projections.sqlite3")
    outcome = run_captured([*argv, "--workspace", str(root)] if len(argv) > 1 and argv[1] == "prune" else argv)
    assert outcome.code == code and message in outcome.err
    assert _rows(root / ".lychd" / "projections.sqlite3") == before


def test_a_missing_cache_is_not_created_by_prune(tmp_path: Path) -> None:
    outcome = run_captured(["cache", "prune", "--older-than", "0s", "--workspace", str(tmp_path), "--json"])
    report = json.loads(outcome.out)
    assert outcome.code == 0 and report["removed"] == 0 and report["exists"] is False
    assert not (tmp_path / ".lychd").exists()  # not even the state directory
    outcome = run_captured(["cache", "prune", "--older-than", "0s", "--workspace", str(tmp_path)])
    assert outcome.code == 0 and "nothing to prune" in outcome.out and not (tmp_path / ".lychd").exists()


def test_a_read_only_sqlite_cache_is_refused_and_untouched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _workspace(tmp_path)
    path = root / ".lychd" / "projections.sqlite3"
    before = _rows(path)
    monkeypatch.setattr(cache_file, "writable", lambda _: False)  # as a user who may not write it
    with pytest.raises(ReadOnlyCacheError, match="read-only"):
        ProjectionCache(path).prune(time.time_ns(), dry_run=True)
    outcome = run_captured(["cache", "prune", "--older-than", "0s", "--workspace", str(root)])
    assert outcome.code == 1 and "ReadOnlyCacheError" in outcome.err and _rows(path) == before


def test_a_select_only_postgresql_role_is_refused_and_deletes_nothing(
    lychd_postgresql: PostgresServer, lychd_pg_schema: str
) -> None:
    owner = PostgresProjectionCache(lychd_postgresql.dsn(), schema=lychd_pg_schema, key_path="unused", key=KEY)
    owner.put(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)
    reader = PostgresProjectionCache(_reader(lychd_postgresql, lychd_pg_schema), schema=lychd_pg_schema,
                                     key_path="unused", key=KEY)  # fmt: skip
    try:
        for dry_run in (True, False):
            with pytest.raises(ReadOnlyCacheError, match="read-only for this role"):
                reader.prune(time.time_ns(), dry_run=dry_run)
        assert owner.count() == 1
        assert owner.prune(time.time_ns()).removed == 1 and owner.count() == 0
    finally:
        reader.close()
        owner.close()
    with psycopg.connect(lychd_postgresql.dsn()) as conn:
        row = conn.execute(f"SELECT count(*) FROM {lychd_pg_schema}.projections").fetchone()
    assert row == (0,)


_PRUNE_LOOP = """
import sys, time
from lychd_core.stores.sqlite.cache import ProjectionCache
cache = ProjectionCache(sys.argv[1], key=b"k" * 32)
print("ready", flush=True)
while True:
    cache.prune(time.time_ns() + 10**18)  # everything goes: a kill lands inside or between transactions
"""


def test_a_killed_prune_leaves_a_valid_cache_with_all_or_none_removed(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    cache = ProjectionCache(path, key=b"k" * 32)
    digests = [f"sha256:{n:064x}" for n in range(20_000)]
    cache.remember_token_counts("c@1 t o", [(digest, 1) for digest in digests])
    cache.put(CACHE_KEY, CACHE_OUTCOME, CACHE_FACTS)
    cache.close()
    child = subprocess.Popen([sys.executable, "-c", _PRUNE_LOOP, str(path)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    child.send_signal(signal.SIGKILL)
    child.wait()
    with connected(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    rows = _rows(path)
    assert (rows["token_counts"], rows["projections"]) in {(20_000, 1), (0, 0)}  # one transaction: all or none
    reopened = ProjectionCache(path, key=b"k" * 32)
    assert (reopened.get(CACHE_KEY) is None) == (rows["projections"] == 0)
    reopened.close()
