"""A store this user can read but not write can still be queried, and nothing is created or changed.

File modes only bind a process that cannot override them. As a regular user, chmod is
enough. As root (CI), the command runs in a subprocess whose capability bounding set
lacks ``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH``, ``CAP_FOWNER`` and ``CAP_CHOWN``, so
the kernel applies the modes to it as to any user. (Switching to ``nobody`` instead, as
the PostgreSQL fixture does, needs an interpreter ``nobody`` may run; this one may live
under a private home.) Each run first proves the restriction holds: creating a file in
the state directory must fail.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lychd_core.memory.codec import load_records_file
from lychd_core.stores.sqlite import memory as memory_store
from lychd_core.stores.sqlite.cache import ProjectionCache
from lychd_core.stores.sqlite.memory import SqliteMemoryStore
from tests.support.hostile import EXAMPLES, Outcome, check_contract, example_records, run_subprocess, workspace, write

PR_CAPBSET_DROP = 24
OVERRIDES = (0, 1, 2, 3)  # CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER


def _drop_overrides() -> None:  # runs in the child between fork and exec
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    for capability in OVERRIDES:
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def run_restricted(args: list[str]) -> Outcome:
    """``python ARGS`` as a process the file modes bind (see the module docstring)."""
    result = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: generous on a loaded machine
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        preexec_fn=_drop_overrides if os.geteuid() == 0 else None,
        check=False,
    )
    return Outcome(result.returncode, result.stdout, result.stderr, 0.0)


def lychd(args: list[str]) -> Outcome:
    return check_contract(run_restricted(["-m", "lychd_core.cli", *args]), args)


def snapshot(root: Path) -> dict[str, tuple[int, int, int, str]]:
    """Every path under ``root`` with its mode, size, modification time and content digest."""
    seen = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
        seen[str(path.relative_to(root))] = (info.st_mode, info.st_size, info.st_mtime_ns, digest)
    return seen


def make_read_only(root: Path) -> None:
    for path in sorted(root.rglob("*"), reverse=True):
        path.chmod(0o400 if path.name == "cache.key" else 0o555 if path.is_dir() else 0o444)
    root.chmod(0o555)


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Path]:
    root = workspace(tmp_path / "ws")
    write(tmp_path / "records.json", json.dumps(example_records()))
    w = ["--workspace", str(root)]
    assert run_subprocess(["memory", "add", str(tmp_path / "records.json"), *w]).code == 0
    assert run_subprocess(["project", *w, "."]).code == 0  # warm the projection cache
    write(root / "NEW.md", "# added after the cache was warmed\n")
    make_read_only(root)
    tmp_path.chmod(0o755)
    yield root
    for path in [root, *root.rglob("*")]:
        path.chmod(0o700 if path.is_dir() else 0o600)


def test_the_restriction_binds(ws: Path) -> None:
    probe = ws / ".lychd" / "probe"
    outcome = run_restricted(["-c", f"open({str(probe)!r}, 'x')"])
    assert outcome.code != 0 and "PermissionError" in outcome.err and not probe.exists()


def test_reads_work_and_touch_nothing(ws: Path) -> None:
    before = snapshot(ws)
    w = ["--workspace", str(ws)]
    for args in (["memory", "stats"], ["memory", "query"], ["memory", "check"], ["memory", "rebuild"]):
        outcome = lychd([*args, *w, "--json"])
        assert outcome.code == 0, (args, outcome.err)
    query = json.loads(lychd(["memory", "query", *w, "--json"]).out)
    assert len(json.dumps(query)) > 100 and "claim" in json.dumps(query)
    outcome = lychd(["project", *w, "--json", "."])
    assert outcome.code == 0, outcome.err
    status = {item["path"]: item["status"] for item in json.loads(outcome.out)["items"]}
    assert status == {"README.md": "cached", "src/app.py": "cached", "NEW.md": "projected"}, status
    outcome = lychd(["assemble", *w, "--query", "greet", "--material", "src/app.py", "--json"])
    assert outcome.code == 0 and "def greet" in outcome.out, outcome.err
    assert snapshot(ws) == before


def test_writes_are_typed_refusals_and_touch_nothing(ws: Path, tmp_path: Path) -> None:
    before = snapshot(ws)
    w = ["--workspace", str(ws)]
    for args in (
        ["memory", "add", str(tmp_path / "records.json")],
        ["memory", "forget", "m-1", "--reason", "r", "--observation", "9"],
    ):
        outcome = lychd([*args, *w])
        assert outcome.code == 1 and "MemoryStoreError" in outcome.err and "read-only" in outcome.err, outcome.err
    assert snapshot(ws) == before


def test_a_read_only_workspace_without_state_still_projects_and_assembles(tmp_path: Path) -> None:
    root = workspace(tmp_path / "bare")
    make_read_only(root)
    tmp_path.chmod(0o755)
    try:
        before = snapshot(root)
        w = ["--workspace", str(root)]
        outcome = lychd(["project", *w, "--json", "."])
        status = {item["path"]: item["status"] for item in json.loads(outcome.out)["items"]}
        assert outcome.code == 0 and status == {"README.md": "projected", "src/app.py": "projected"}, outcome.err
        outcome = lychd(["assemble", *w, "--query", "greet", "--material", "src/app.py", "--json"])
        assert outcome.code == 0 and "def greet" in outcome.out, outcome.err
        outcome = lychd(["memory", "stats", *w])
        assert outcome.code == 1 and "StoreMissingError" in outcome.err
        assert snapshot(root) == before and not (root / ".lychd").exists()
    finally:
        for path in [root, *root.rglob("*")]:
            path.chmod(0o700 if path.is_dir() else 0o600)


# --- the same, in-process, over arbitrary stores -----------------------------------------

RECORDS = load_records_file(EXAMPLES / "memory.json")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chosen=st.lists(st.sampled_from(range(len(RECORDS))), min_size=1, unique=True), with_wal=st.booleans())
def test_a_read_only_store_answers_like_a_writable_one(
    chosen: list[int], with_wal: bool, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path_factory.mktemp("ro") / "memory.sqlite3"
    with SqliteMemoryStore.open(path) as store:
        store.add_many(RECORDS[i] for i in chosen)
    writer = SqliteMemoryStore.open(path, create=False) if with_wal else None  # keeps -wal and -shm in place
    try:
        with SqliteMemoryStore.open(path, create=False) as store:
            expected = (store.stats(), store.records(), store.tombstones())
        files = snapshot(path.parent)
        with monkeypatch.context() as patch:
            patch.setattr(memory_store, "writable", lambda _path: False)
            with SqliteMemoryStore.open(path, create=False) as store:
                assert store.read_only and (store.stats(), store.records(), store.tombstones()) == expected
        assert snapshot(path.parent) == files
    finally:
        if writer is not None:
            writer.close()


def test_a_read_only_projection_cache_serves_hits_and_stores_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lychd_core.families import Projected
    from lychd_core.projection.cache_entries import CacheKey
    from lychd_core.stores.sqlite import cache_file as cache_file_module

    key = CacheKey("sha256:" + "0" * 64, "verbatim", 1, "sha256:" + "1" * 64, "v1")
    other = CacheKey("sha256:" + "2" * 64, "verbatim", 1, "sha256:" + "1" * 64, "v1")
    cache = ProjectionCache(tmp_path / "projections.sqlite3")
    cache.put(key, Projected("text"), b"null")
    cache.close()
    files = snapshot(tmp_path)
    monkeypatch.setattr(cache_file_module, "writable", lambda _path: False)
    reader = ProjectionCache(tmp_path / "projections.sqlite3")
    hit = reader.get(key)
    assert hit is not None and hit[0].text == "text" and reader.read_only
    reader.put(other, Projected("new"), b"null")  # not remembered, not an error
    assert reader.get(other) is None
    reader.close()
    assert snapshot(tmp_path) == files


def test_a_cache_that_cannot_be_created_is_an_empty_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lychd_core.families import Projected
    from lychd_core.projection.cache_entries import CacheKey
    from lychd_core.stores.sqlite import cache_file as cache_file_module

    key = CacheKey("sha256:" + "0" * 64, "verbatim", 1, "sha256:" + "1" * 64, "v1")
    monkeypatch.setattr(cache_file_module, "creatable", lambda _path: False)
    cache = ProjectionCache(tmp_path / "state" / "projections.sqlite3")
    assert cache.get(key) is None and cache.read_only
    cache.put(key, Projected("text"), b"null")
    assert cache.get(key) is None and cache.count() == 0
    cache.close()
    assert list(tmp_path.iterdir()) == []
