"""Several writer processes at once, and a writer killed with SIGKILL mid-stream."""

from __future__ import annotations

import multiprocessing
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from lychd_core.memory import ClaimType, MemoryRecord, MemoryScope, add_feedback
from lychd_core.stores.sqlite import SqliteMemoryStore
from lychd_core.vocabulary import Provenance
from tests.support.sqlite_files import connected

WRITERS = 4
PER_WRITER = 25
BUMPS = 5


def make(memory_id: str) -> MemoryRecord:
    return MemoryRecord(
        memory_id=memory_id,
        revision=1,
        scope=MemoryScope(project="p"),
        claim_type=ClaimType.FACT,
        claim=f"claim of {memory_id}",
        source_provenance=Provenance.TOOL,
        source_events=("ev",),
        confidence=5000,
        token_estimate=5,
        created=1,
        observed=1,
    )


def _writer(path: str, number: int) -> None:
    with SqliteMemoryStore.open(path, busy_timeout_ms=20_000) as store:
        for i in range(PER_WRITER):
            store.add(make(f"w{number}-{i:03d}"))
            if i % (PER_WRITER // BUMPS) == 0:
                # read-modify-write under BEGIN IMMEDIATE: increments must never be lost
                store.transition("shared", lambda r: add_feedback(r, r.observed + 1, positive=1))


def test_several_processes_write_at_once(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    with SqliteMemoryStore.open(path) as store:
        store.add(make("shared"))
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(str(path), n)) for n in range(WRITERS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=600)  # a hang guard only
    assert all(worker.exitcode == 0 for worker in workers), [w.exitcode for w in workers]
    with SqliteMemoryStore.open(path) as store:
        view = store.view()
        assert len(view.records) == 1 + WRITERS * PER_WRITER
        shared = store.latest("shared")
        assert shared is not None
        assert shared.feedback.positive == WRITERS * BUMPS
        assert shared.revision == 1 + WRITERS * BUMPS
        assert store.check()["integrity"] == "ok"


CHILD = textwrap.dedent(
    """
    import sys
    from lychd_core.memory import ClaimType, MemoryRecord, MemoryScope
    from lychd_core.stores.sqlite import SqliteMemoryStore
    from lychd_core.vocabulary import Provenance

    store = SqliteMemoryStore.open(sys.argv[1])
    for batch in range(100_000):
        records = [
            MemoryRecord(
                memory_id=f"c{batch:06d}-{i}", revision=1, scope=MemoryScope(project="p"),
                claim_type=ClaimType.FACT, claim="x" * 300, source_provenance=Provenance.TOOL,
                source_events=("ev",), confidence=5000, token_estimate=100, created=1, observed=1,
            )
            for i in range(5)
        ]
        store.add_many(records)
        print(" ".join(r.memory_id for r in records), flush=True)  # acknowledged: after commit
    """
)


def test_a_killed_writer_loses_nothing_it_acknowledged(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite3"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    acknowledged: list[str] = []
    deadline = time.monotonic() + 600  # a hang guard only: the child acknowledges 200 far sooner
    try:
        assert child.stdout is not None
        while len(acknowledged) < 200 and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            acknowledged.extend(line.split())
        child.send_signal(signal.SIGKILL)
        rest, errors = child.communicate(timeout=600)
    finally:
        if child.poll() is None:
            child.kill()
    acknowledged.extend(rest.split())
    assert child.returncode == -signal.SIGKILL, errors
    assert len(acknowledged) >= 200, errors
    with connected(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with SqliteMemoryStore.open(path) as store:
        stored = {record.memory_id for record in store.records()}
        assert set(acknowledged) <= stored
        assert len(stored) % 5 == 0  # batches are whole: nothing half-written
        assert store.check()["integrity"] == "ok"
