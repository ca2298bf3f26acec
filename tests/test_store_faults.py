"""Faults against a real PostgreSQL store: SIGKILLed writers, a server restart under load, a tampered cache row."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from lychd_core.config import default_config
from lychd_core.digests import sha256_digest, text_digest
from lychd_core.memory.errors import StoreConnectionError
from lychd_core.memory.lifecycle import review
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Projector
from lychd_core.registry import get_registry
from lychd_core.stores.copy import copy_memory_store
from lychd_core.stores.postgres import PostgresMemoryStore, PostgresProjectionCache
from lychd_core.stores.sqlite import SqliteMemoryStore
from lychd_core.testing.postgres import PostgresServer
from lychd_core.testing.store_contract import contract_record

WRITERS = 8
SHARED = 4


def _writer(dsn: str, schema: str, worker: int, acks: str) -> None:
    """Add, review shared memories and forget, appending one line per acknowledged write."""
    store = PostgresMemoryStore.open(dsn, schema=schema, create=False, pool_size=1)
    with open(acks, "a", buffering=1) as log:
        for i in range(100_000):
            record = contract_record(f"w{worker}-{i}", claim=f"writer {worker} item {i}")
            store.add(record)
            log.write(json.dumps(["add", record.memory_id, record.revision, record.digest]) + "\n")
            if i % 3 == 0:
                shared = f"shared{i % SHARED}"
                new = store.transition(shared, lambda r: review(r, r.observed + 1))
                log.write(json.dumps(["add", shared, new.revision, new.digest]) + "\n")
            if i % 7 == 6:
                stone = store.forget(f"w{worker}-{i - 1}", "fault test", 2)
                log.write(json.dumps(["forget", stone.memory_id, stone.revision, stone.prior_digest]) + "\n")


def test_sigkilled_writers_lose_nothing_acknowledged(
    lychd_postgresql: PostgresServer, lychd_pg_schema: str, tmp_path: Path
) -> None:
    dsn = lychd_postgresql.dsn()
    with PostgresMemoryStore.open(dsn, schema=lychd_pg_schema) as store:
        store.add_many([contract_record(f"shared{k}") for k in range(SHARED)])
    context = multiprocessing.get_context("fork")
    logs = [tmp_path / f"acks{w}.jsonl" for w in range(WRITERS)]
    workers = [context.Process(target=_writer, args=(dsn, lychd_pg_schema, w, str(logs[w]))) for w in range(WRITERS)]
    for process in workers:
        process.start()
    rng = random.Random(16)
    deadline = time.monotonic() + 4.0
    for process in rng.sample(workers, len(workers)):
        time.sleep(max(0.0, min(rng.uniform(0.2, 0.6), deadline - time.monotonic())))
        assert process.pid is not None
        os.kill(process.pid, signal.SIGKILL)
    for process in workers:
        process.join(30)
        assert process.exitcode == -signal.SIGKILL
    acked: list[list[Any]] = []
    for log in logs:
        lines = log.read_text().splitlines() if log.exists() else []
        acked.extend(json.loads(line) for line in lines if line.endswith("]"))  # a torn last line was never acked
    assert sum(1 for kind, *_ in acked if kind == "add") > WRITERS  # every writer got work done
    with PostgresMemoryStore.open(dsn, schema=lychd_pg_schema, create=False) as store:
        stored = {(r.memory_id, r.revision): r.digest for r in store.records()}
        stones = {(s.memory_id, s.revision): s.prior_digest for s in store.tombstones()}
        forgotten = {memory_id for memory_id, _ in stones}
        for kind, memory_id, revision, digest in acked:
            if kind == "forget":
                assert stones[(memory_id, revision)] == digest
            elif memory_id not in forgotten:
                assert stored[(memory_id, revision)] == digest, (memory_id, revision)
        for k in range(SHARED):  # revisions of the contended memories are 1..n, none duplicated or skipped
            revisions = sorted(revision for memory_id, revision in stored if memory_id == f"shared{k}")
            assert revisions == list(range(1, len(revisions) + 1))
        with psycopg.connect(dsn) as conn:
            duplicates = conn.execute(
                f"SELECT memory_id, revision FROM {lychd_pg_schema}.record_revisions "
                "GROUP BY memory_id, revision HAVING count(*) > 1"
            ).fetchall()
        assert duplicates == []
        served = store.index().digest
        with SqliteMemoryStore.open(tmp_path / "rebuilt.sqlite3") as rebuilt:
            copied = copy_memory_store(store, rebuilt)
            assert served == copied["index_digest"] == rebuilt.rebuild_index().digest


def wait_until(condition: Callable[[], bool], what: str, hang_seconds: float = 300.0) -> None:
    deadline = time.monotonic() + hang_seconds
    while not condition():
        assert time.monotonic() < deadline, f"no progress: {what}"
        time.sleep(0.05)


def test_a_server_restart_under_load_gives_typed_errors_then_recovers(tmp_path: Path) -> None:
    server = PostgresServer().start()
    try:
        dsn = server.dsn()
        PostgresMemoryStore.open(dsn, schema="load").close()
        acked: list[tuple[str, str]] = []
        failures: list[BaseException] = []
        stop = threading.Event()

        def write(worker: int) -> None:
            store = PostgresMemoryStore.open(dsn, schema="load", create=False, pool_size=1, pool_timeout=20)
            i = 0
            while not stop.is_set():
                record = contract_record(f"load{worker}-{i}")
                try:
                    store.add(record)
                except StoreConnectionError as exc:
                    failures.append(exc)
                    continue  # retry the same record: adding is idempotent
                except BaseException as exc:  # anything untyped fails the test
                    failures.append(exc)
                    return
                acked.append((record.memory_id, record.digest))
                i += 1
            store.close()

        threads = [threading.Thread(target=write, args=(w,)) for w in range(3)]
        for thread in threads:
            thread.start()
        # Progress, not time: wait for acknowledged writes before and after the restart, so a
        # loaded machine only makes the test slower (the deadline only guards against a hang).
        wait_until(lambda: len(acked) >= 5 or bool(failures), "writes before the restart")
        before = len(acked)
        server.restart()
        wait_until(lambda: len(acked) >= before + 5 or any(not isinstance(e, StoreConnectionError) for e in failures),
                   "writes after the restart")  # fmt: skip
        stop.set()
        for thread in threads:
            thread.join(60)
        assert all(isinstance(exc, StoreConnectionError) for exc in failures), failures
        assert len(acked) > before  # the writers recovered after the restart

        # With the server down a call fails typed within its pool timeout, and recovers once it is back.
        store = PostgresMemoryStore.open(dsn, schema="load", create=False, pool_timeout=2)
        server.stop()
        with pytest.raises(StoreConnectionError, match="connection"):
            store.add(contract_record("while-down"))
        server.start()
        assert store.add(contract_record("after-restart"))
        stored = {r.memory_id: r.digest for r in store.records()}
        store.close()
        assert all(stored[memory_id] == digest for memory_id, digest in acked)
    finally:
        server.destroy()


SOURCE = "def visible(a):\n    return a\n\n\ndef hidden():\n    return 'the body stays out'\n"


def test_a_tampered_cache_row_in_postgresql_is_re_projected(
    lychd_postgresql: PostgresServer, lychd_pg_schema: str, tmp_path: Path
) -> None:
    (tmp_path / "mod.py").write_text(SOURCE)
    dsn, workspace = lychd_postgresql.dsn(), Workspace(tmp_path)

    def project() -> Any:
        cache = PostgresProjectionCache(dsn, schema=lychd_pg_schema, key_path=tmp_path / "cache.key")
        projector = Projector(default_config(), get_registry(), workspace, cache)
        try:
            return projector.project(MaterialRef.for_current(workspace, "mod.py"))
        finally:
            cache.close()

    honest = project()
    assert project().cached is True
    with psycopg.connect(dsn) as conn:
        payload, facts = conn.execute(f"SELECT payload, facts FROM {lychd_pg_schema}.projections").fetchone()
        data = json.loads(payload)
        data["text"] = SOURCE
        data["text_digest"] = text_digest(SOURCE)
        forged = json.dumps(data, sort_keys=True, separators=(",", ":"))
        tag = sha256_digest(f"{forged}\n{facts}".encode())
        conn.execute(f"UPDATE {lychd_pg_schema}.projections SET payload = %s, entry_mac = %s", (forged, tag))
    again = project()
    assert again.cached is False and again.block == honest.block
    assert again.block is not None and "the body stays out" not in again.block.text
    assert project().cached is True  # the re-projection replaced the forged row
