"""Store backends: PostgreSQL ingest vs raw psycopg, concurrent writers, retrieval vs SQLite.

    python benchmarks/bench_stores.py            # 20k records (quick)
    python benchmarks/bench_stores.py --full     # 1M records (the issue's size)

Starts its own throwaway PostgreSQL cluster (``lychd_core.testing.postgres``, fsync on, a
Unix socket) and SQLite files in a temporary directory. Records come from
``bench_memory.generate`` (fixed seed). Three ratios, each measured side by side in one run:

- ingest: the PostgreSQL backend's ``add_many`` vs raw psycopg ``executemany`` of the
  same rows into the same table (goal >= 0.5x: ours is at least half as fast);
- writers: 4 processes vs 1, each adding one memory per transaction for a fixed time
  (goal >= 2x total throughput on PostgreSQL; SQLite's figure beside it);
- retrieval: the same queries through the PostgreSQL and SQLite backends at the same
  size (goal <= 3x). Every PostgreSQL plan must equal the SQLite plan.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_memory import generate, queries

from lychd_core.memory import MemoryQuery
from lychd_core.memory.codec import stored_row
from lychd_core.memory.protocol import MemoryStore
from lychd_core.stores.postgres import PostgresMemoryStore
from lychd_core.stores.sqlite import SqliteMemoryStore
from lychd_core.testing.postgres import PostgresServer
from lychd_core.testing.store_contract import contract_record

WRITE_SECONDS = 3.0


def best(runs: int, action: Callable[[], Any]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_ingest(dsn: str, count: int, runs: int) -> tuple[float, float]:
    records = generate(count)
    rows = [stored_row(r) for r in records]
    schema_number = iter(range(1000))

    def ours() -> None:
        with PostgresMemoryStore.open(dsn, schema=f"ingest_ours{next(schema_number)}") as store:
            store.add_many(records)

    def raw() -> None:
        schema = f"ingest_raw{next(schema_number)}"
        PostgresMemoryStore.open(dsn, schema=schema).close()  # the same table, indexes and triggers
        with psycopg.connect(dsn) as conn:
            conn.execute(f"SET search_path TO {schema}")
            conn.cursor().executemany(
                "INSERT INTO record_revisions (memory_id, revision, digest, observed, body) "
                "VALUES (%s, %s, %s, %s, %s)",
                rows,
            )

    return best(runs, ours), best(runs, raw)


def _writer(opener: Callable[[], MemoryStore], worker: int, start: Any, results: Any) -> None:
    store = opener()
    start.wait()
    deadline = time.perf_counter() + WRITE_SECONDS
    done = 0
    while time.perf_counter() < deadline:
        store.add(contract_record(f"w{worker}-{done}", claim=f"writer {worker} learned lesson {done}"))
        done += 1
    store.close()
    results.put(done)


def throughput(opener: Callable[[], MemoryStore], processes: int) -> float:
    context = multiprocessing.get_context("fork")
    start, results = context.Event(), context.Queue()
    workers = [context.Process(target=_writer, args=(opener, w, start, results)) for w in range(processes)]
    for process in workers:
        process.start()
    time.sleep(0.5)  # every writer connected and waiting
    start.set()
    total = sum(results.get(timeout=120) for _ in workers)
    for process in workers:
        process.join(60)
    return total / WRITE_SECONDS


def bench_retrieval(dsn: str, folder: Path, count: int, runs: int) -> dict[str, float]:
    records = generate(count)
    asks: list[MemoryQuery] = queries(20)
    sqlite = SqliteMemoryStore.open(folder / "retrieval.sqlite3")
    postgres = PostgresMemoryStore.open(dsn, schema="retrieval")
    sqlite.add_many(records)
    postgres.add_many(records)
    figures = {
        "sqlite_cold": best(1, sqlite.rebuild_index),
        "postgres_cold": best(1, postgres.rebuild_index),
    }
    for ask in asks:  # warm both caches and check the plans agree
        assert sqlite.query(ask).digest == postgres.query(ask).digest
    figures["sqlite"] = best(runs, lambda: [sqlite.query(ask) for ask in asks]) / len(asks)
    figures["postgres"] = best(runs, lambda: [postgres.query(ask) for ask in asks]) / len(asks)
    sqlite.close()
    postgres.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="1M records (the issue's size)")
    args = parser.parse_args()
    count, runs = (1_000_000, 1) if args.full else (20_000, 3)
    server = PostgresServer(fsync=True).start()
    try:
        dsn = server.dsn()
        with tempfile.TemporaryDirectory() as folder:
            print(f"ingest of {count:,} records")
            ours, raw = bench_ingest(dsn, count, runs)
            print(f"  PostgreSQL backend add_many      {ours:8.2f} s")
            print(f"  raw psycopg executemany          {raw:8.2f} s")
            print(f"  backend speed / raw              {raw / ours:8.2f}x  (goal >= 0.5)")

            print(f"writers, one memory per transaction, {WRITE_SECONDS:.0f} s each")
            folder_path = Path(folder)
            pg_one = throughput(lambda: PostgresMemoryStore.open(dsn, schema="writers1", pool_size=1), 1)
            pg_four = throughput(lambda: PostgresMemoryStore.open(dsn, schema="writers4", pool_size=1), 4)
            for path in (folder_path / "one.sqlite3", folder_path / "four.sqlite3"):
                SqliteMemoryStore.open(path).close()
            lite_one = throughput(lambda: SqliteMemoryStore.open(folder_path / "one.sqlite3"), 1)
            shared = folder_path / "four.sqlite3"
            lite_four = throughput(lambda: SqliteMemoryStore.open(shared, busy_timeout_ms=60_000), 4)
            for name, one, four, goal in (
                ("PostgreSQL", pg_one, pg_four, "(goal >= 2)"),
                ("SQLite", lite_one, lite_four, "(reported)"),
            ):
                print(f"  {name:<10} 1 writer {one:8.0f}/s   4 writers {four:8.0f}/s   {four / one:5.2f}x  {goal}")

            print(f"retrieval at {count:,} records (20 queries, cached index)")
            figures = bench_retrieval(dsn, Path(folder), count, runs)
            print(f"  SQLite backend per query         {figures['sqlite'] * 1e3:8.3f} ms")
            print(f"  PostgreSQL backend per query     {figures['postgres'] * 1e3:8.3f} ms")
            print(f"  PostgreSQL / SQLite              {figures['postgres'] / figures['sqlite']:8.2f}x  (goal <= 3)")
            cold = figures["postgres_cold"] / figures["sqlite_cold"]
            print(f"  index rebuild from the store     {cold:8.2f}x  (reported: {figures['postgres_cold']:.2f} s vs "
                  f"{figures['sqlite_cold']:.2f} s)")  # fmt: skip
    finally:
        server.destroy()


if __name__ == "__main__":
    main()
