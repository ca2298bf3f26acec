"""The projection cache: keyed, verified on every read, safe across processes."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest
from lychd_structure_python import PROFILE as STRUCTURE
from lychd_verbatim import PROFILE as VERBATIM

from lychd_core.blocks import Omission
from lychd_core.config import default_config
from lychd_core.digests import sha256_digest
from lychd_core.errors import ProjectionCacheError
from lychd_core.families import PluginFamily, Projected
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.media import detect_media_type
from lychd_core.projection.projector import Projector
from lychd_core.registry import registry_from
from lychd_core.stores.sqlite import cache_file
from lychd_core.stores.sqlite.cache import CacheKey, ProjectionCache
from tests.support.sqlite_files import connected

KEY = CacheKey(sha256_digest(b"src"), "verbatim", 1, sha256_digest(b"opts"), "python 3.11 codecs")
OUTCOME = Projected(
    text="hello\nworld", facts={"n": 2}, line_map=(1, 2), omissions=(Omission(kind="truncated", reason="r"),)
)
FACTS = b'{"n":2}'


def registry() -> Any:
    return registry_from([(PluginFamily.PROJECTION_PROFILE, STRUCTURE), (PluginFamily.PROJECTION_PROFILE, VERBATIM)])


def test_round_trip(tmp_path: Path) -> None:
    cache = ProjectionCache(tmp_path / "state" / "p.sqlite3")
    assert cache.get(KEY) is None
    cache.put(KEY, OUTCOME, FACTS)
    assert cache.get(KEY) == (OUTCOME, FACTS) and cache.count() == 1
    other = CacheKey(KEY.source_digest, "verbatim", 1, KEY.options_digest, "python 3.12 codecs")
    assert cache.get(other) is None  # the parser version is part of the key
    mode = cache._connect().execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    cache.close()


def _tamper(path: Path, sql: str, *args: Any) -> None:
    with connected(path) as connection:
        connection.execute(sql, args)


@pytest.mark.parametrize(
    ("mutation", "facts"),
    [
        (lambda p: {**p, "text": "forged"}, FACTS),
        (lambda p: {**p, "schema": 99}, FACTS),
        (lambda p: {**p, "key": ["other"]}, FACTS),
        (lambda p: {**p, "line_map": [0]}, FACTS),
        (lambda p: {**p, "omissions": [{"kind": ""}]}, FACTS),
        (lambda p: p, b'{"x":1.5}'),
        (lambda p: p, b"{not json"),
    ],
)
def test_foreign_or_forged_entries_are_misses(tmp_path: Path, mutation: Any, facts: bytes) -> None:
    path = tmp_path / "p.sqlite3"
    cache = ProjectionCache(path)
    cache.put(KEY, OUTCOME, FACTS)
    payload = json.loads(cache._connect().execute("SELECT payload FROM projections").fetchone()[0])
    forged, forged_facts = json.dumps(mutation(payload)), facts.decode()
    digest = sha256_digest(f"{forged}\n{forged_facts}".encode())
    _tamper(path, "UPDATE projections SET payload = ?, facts = ?, entry_digest = ?", forged, forged_facts, digest)
    assert cache.get(KEY) is None


def test_entry_not_matching_its_digest_is_a_miss(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    cache = ProjectionCache(path)
    cache.put(KEY, OUTCOME, FACTS)
    _tamper(path, "UPDATE projections SET payload = replace(payload, 'hello', 'HELLO')")
    assert cache.get(KEY) is None
    cache.put(KEY, OUTCOME, FACTS)
    _tamper(path, "UPDATE projections SET facts = ?", '{"n":3}')
    assert cache.get(KEY) is None
    cache.put(KEY, OUTCOME, FACTS)  # recomputed outcomes overwrite the bad entry
    assert cache.get(KEY) == (OUTCOME, FACTS)


def test_media_decisions_are_remembered_and_verified(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    cache = ProjectionCache(path)
    decision = detect_media_type("a.py", b"x = 1\n")
    digest = sha256_digest(b"x = 1\n")
    assert cache.media(digest, "a.py", None) is None
    cache.remember_media([(digest, "a.py", None, decision)])
    assert cache.media(digest, "a.py", None) == decision
    assert cache.media(digest, "a.txt", None) is None and cache.media(digest, "a.py", "text/plain") is None
    _tamper(path, "UPDATE media_decisions SET decision = replace(decision, 'text/x-python', 'text/plain')")
    assert cache.media(digest, "a.py", None) is None


def test_a_file_that_is_not_a_cache_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    path.write_bytes(b"this is not an sqlite database, just garbage" * 100)
    with pytest.raises(ProjectionCacheError, match="not a lychd projection cache"):
        ProjectionCache(path).put(KEY, OUTCOME, FACTS)
    assert path.read_bytes() == b"this is not an sqlite database, just garbage" * 100
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache.key", "p.sqlite3"]


def test_a_damaged_cache_of_our_own_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    cache = ProjectionCache(path)
    cache.put(KEY, OUTCOME, FACTS)
    cache.close()
    with connected(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damaged = path.read_bytes()[:100] + b"\xff" * (path.stat().st_size - 100)
    path.write_bytes(damaged)
    cache = ProjectionCache(path)
    cache.put(KEY, OUTCOME, FACTS)
    assert cache.get(KEY) == (OUTCOME, FACTS)
    (aside,) = cache.moved_aside
    assert aside.name.startswith("p.sqlite3.corrupt-") and aside.read_bytes() == damaged


def test_foreign_sqlite_database_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    with connected(path) as connection:
        connection.execute("CREATE TABLE records (id INTEGER)")
        connection.execute("INSERT INTO records VALUES (1)")
    with pytest.raises(ProjectionCacheError) as caught:
        ProjectionCache(path).get(KEY)
    assert "another application" in str(caught.value)
    with connected(path) as connection:
        assert connection.execute("SELECT count(*) FROM records").fetchone()[0] == 1


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    ProjectionCache(path).put(KEY, OUTCOME, FACTS)
    _tamper(path, "PRAGMA user_version = 99")
    with pytest.raises(ProjectionCacheError):
        ProjectionCache(path).get(KEY)


def _writer(path: str, worker: int, count: int) -> None:
    cache = ProjectionCache(path)
    for index in range(count):
        key = CacheKey(sha256_digest(f"{worker}-{index}".encode()), "verbatim", 1, KEY.options_digest, "v")
        cache.put(key, Projected(text=f"{worker}:{index}"), b"null")
        cache.get(KEY)
    cache.close()


def test_concurrent_processes_share_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(str(path), w, 40)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
    assert [p.exitcode for p in workers] == [0, 0, 0, 0]
    assert ProjectionCache(path).count() == 160


def test_warm_projection_equals_cold_and_is_marked_cached(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("def f(a, b=2):\n    return a\n")
    (tmp_path / "doc.md").write_text("# Doc\n")
    workspace = Workspace(tmp_path)
    cache = ProjectionCache(tmp_path / ".lychd" / "projections.sqlite3")
    projector = Projector(default_config(), registry(), workspace, cache)
    refs = [MaterialRef.for_current(workspace, p) for p in ("mod.py", "doc.md")]
    cold = projector.project_many(refs)
    warm = projector.project_many(refs)
    assert [c.cached for c in cold] == [False, False] and [c.cached for c in warm] == [True, True]
    assert [c.block for c in cold] == [c.block for c in warm]
    assert [c.digest for c in cold] == [c.digest for c in warm]


def test_changed_options_or_bounds_miss(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("def f(): pass\n")
    workspace = Workspace(tmp_path)
    cache = ProjectionCache(tmp_path / "p.sqlite3")
    projector = Projector(default_config(), registry(), workspace, cache)
    projector.project(MaterialRef.for_current(workspace, "mod.py"))
    again = projector.project(MaterialRef.for_current(workspace, "mod.py", max_chars=5000))
    assert again.cached is False
    assert projector.project(MaterialRef.for_current(workspace, "mod.py", max_chars=5000)).cached is True


def test_a_run_records_mac_column_comes_before_its_record(tmp_path: Path) -> None:
    """SQLite reads a row's columns in order: a MAC stored after a multi-megabyte record would
    be reached only through the record's whole overflow chain on every lookup."""
    path = tmp_path / "p.sqlite3"
    ProjectionCache(path).put(KEY, OUTCOME, FACTS)
    with connected(path) as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(run_records)")]
    assert columns == ["run_key", "written", "entry_digest", "record"]


def test_a_schema_3_cache_is_rebuilt_with_the_new_run_records_table(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    ProjectionCache(path).put(KEY, OUTCOME, FACTS)
    with connected(path) as connection:  # the schema-3 layout: the MAC after the record
        connection.execute("DROP TABLE run_records")
        connection.execute(
            "CREATE TABLE run_records (run_key TEXT PRIMARY KEY, written INTEGER NOT NULL, "
            "record BLOB NOT NULL, entry_digest TEXT NOT NULL)"
        )
        connection.execute("INSERT INTO run_records VALUES ('k', 1, x'00', 'mac')")
        connection.execute("PRAGMA user_version = 3")
    cache = ProjectionCache(path)
    assert cache.get(KEY) is None  # an older schema is dropped whole: its entries are recomputed
    cache.remember_run("k2", b"record", lambda secret: "mac2")
    assert cache.read_run("k2", lambda reader, tag: (reader.read(), tag)) == (b"record", "mac2")
    assert cache.read_run("k", lambda reader, tag: tag) is None
    with connected(path) as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(run_records)")]
        assert connection.execute("PRAGMA user_version").fetchone()[0] == cache_file.SCHEMA_VERSION == 5
    assert columns == ["run_key", "written", "entry_digest", "record"]


def test_a_new_cache_uses_large_pages(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite3"
    ProjectionCache(path).put(KEY, OUTCOME, FACTS)
    with connected(path) as connection:
        assert connection.execute("PRAGMA page_size").fetchone()[0] == cache_file.PAGE_SIZE == 65_536
    assert ProjectionCache(path).get(KEY) is not None
