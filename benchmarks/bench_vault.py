"""Pseudonym-map vault: lease create → claim → rehydrate → consume per second vs raw SQLite.

    python benchmarks/bench_vault.py                    # 200 leases (quick)
    python benchmarks/bench_vault.py --full             # 1,000 leases
    python benchmarks/bench_vault.py --full --eager-truncate   # the per-erasure WAL truncation alternative

Vault: each lease is created (erasure secret in the key store, then the sealed lease
row), claimed, and rehydrated, which consumes it and destroys its key (row blobs nulled,
erasure secret deleted, both WALs checkpointed). Every commit is durable (WAL,
``synchronous=FULL``), as in production. Raw: the same transactions on the same two
files with the same row shapes and sizes and the same pragmas, without cryptography,
MACs, validation or checkpoints: insert secret, insert lease row, record the claim in the
key store, update claim, update to consumed with blobs nulled, delete secret and claim.
Within one run raw and vault alternate in blocks of 25 cycles, so both see the same
disk and load (the shared machine's fsync time drifts by 10x within minutes); ratio =
raw time / vault time per run, median of the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lychd_core.privacy.vault import Vault, rehydrate
from lychd_core.privacy.vault.sqlite import connect, create_database
from tests.support.vaults import SCHEMA, VALUES, Clock, candidate, claim_for, lease_request, model_return

BLOCK = 25  # cycles per side before switching


class VaultCycles:
    """Full lease cycles through one open vault."""

    def __init__(self, workdir: Path, *, eager_truncate: bool) -> None:
        self.vault = Vault.open(
            workdir / "state" / "vault.sqlite3",
            workdir / "keys" / "vault.keys",
            clock=Clock(),
            truncate_wal_on_erasure=eager_truncate,
        )
        self.request = lease_request()
        self.done = 0

    def run(self, count: int) -> float:
        vault = self.vault
        started = time.perf_counter()
        for _ in range(count):
            grant = vault.create_lease(self.request, VALUES, candidate)
            owner = grant.candidate.split("owner=")[1].split(";")[0]
            contact = grant.candidate.split("contact=")[1].split(";")[0]
            returned = model_return(owner, contact)
            claim = claim_for(returned)
            vault.claim(grant.lease_id, claim)
            result = rehydrate(vault, grant.lease_id, claim, returned, SCHEMA)
            assert result.receipt.substitutions == {"email": 1, "owner": 1}
        self.done += count
        return time.perf_counter() - started

    def close(self) -> None:
        assert self.vault.counts()["CONSUMED"] == self.done and self.vault.keys.lease_ids() == self.vault.pooled_ids
        self.vault.close()


def _create_tables(conn: sqlite3.Connection, tables: tuple[str, ...]) -> None:
    for table in tables:
        conn.execute(f"CREATE TABLE {table}")


class RawCycles:
    """The same transactions on two raw SQLite files with the same pragmas."""

    def __init__(self, workdir: Path) -> None:
        keys, db = workdir / "raw-keys" / "k.sqlite3", workdir / "raw-state" / "v.sqlite3"
        for path, tables in (
            (keys, ("s (id TEXT PRIMARY KEY, epoch INTEGER, secret BLOB, created INTEGER)",
                    "c (id TEXT PRIMARY KEY, claim TEXT, created INTEGER)")),
            (db, ("l (id TEXT PRIMARY KEY, body TEXT, state TEXT, claim TEXT, changed INTEGER, expires INTEGER,"
                  " wn BLOB, wd BLOB, mn BLOB, mc BLOB, mac BLOB)", "n (nonce BLOB PRIMARY KEY) WITHOUT ROWID")),
        ):  # fmt: skip
            create_database(path, partial(_create_tables, tables=tables))
        self.keys = connect(keys, busy_timeout_ms=30_000)
        self.db = connect(db, busy_timeout_ms=30_000)
        self.body = json.dumps(lease_request().model_dump(mode="json")) + "x" * 200
        self.claim = json.dumps(claim_for({}).model_dump(mode="json"))
        self.done = 0

    @staticmethod
    def _tx(conn: sqlite3.Connection, statement: str, *args: Any) -> None:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(statement, args)
        conn.execute("COMMIT")

    def run(self, count: int) -> float:
        keys, db, tx = self.keys, self.db, self._tx
        started = time.perf_counter()
        for i in range(self.done, self.done + count):
            lease_id = f"lease_{i:032x}"
            tx(keys, "INSERT INTO s VALUES (?, 1, ?, 0)", lease_id, os.urandom(32))
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO n VALUES (?)", [(os.urandom(12),), (os.urandom(12),)])
            db.execute(
                "INSERT INTO l VALUES (?,?,'ACTIVE',NULL,0,0,?,?,?,?,?)",
                (lease_id, self.body, os.urandom(12), os.urandom(48), os.urandom(12), os.urandom(110), os.urandom(32)),
            )
            db.execute("COMMIT")
            tx(keys, "INSERT OR IGNORE INTO c VALUES (?, ?, 0)", lease_id, "sha256:" + "c" * 64)  # claim on record
            claimed = "UPDATE l SET state='CLAIMED', claim=?, mac=? WHERE id=? AND state='ACTIVE'"
            tx(db, claimed, self.claim, b"m" * 32, lease_id)
            consume = "UPDATE l SET state='CONSUMED', wn=NULL, wd=NULL, mn=NULL, mc=NULL WHERE id=? AND state='CLAIMED'"
            tx(db, consume, lease_id)
            keys.execute("BEGIN IMMEDIATE")
            keys.execute("DELETE FROM s WHERE id=?", (lease_id,))
            keys.execute("DELETE FROM c WHERE id=?", (lease_id,))
            keys.execute("COMMIT")
        self.done += count
        return time.perf_counter() - started

    def close(self) -> None:
        self.keys.close()
        self.db.close()


def interleaved(workdir: Path, count: int, *, eager_truncate: bool) -> tuple[float, float]:
    """Raw and vault cycles alternating in blocks, so both see the same disk and load."""
    raw, vault = RawCycles(workdir), VaultCycles(workdir, eager_truncate=eager_truncate)
    raw_time = vault_time = 0.0
    try:
        for start in range(0, count, BLOCK):
            size = min(BLOCK, count - start)
            raw_time += raw.run(size)
            vault_time += vault.run(size)
    finally:
        raw.close()
        vault.close()
    return raw_time, vault_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="1,000 leases instead of 200")
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs (default 3)")
    parser.add_argument(
        "--eager-truncate", action="store_true", help="open the vault with truncate_wal_on_erasure=True"
    )
    args = parser.parse_args()
    count = 1_000 if args.full else 200
    ratios, raw_times, vault_times = [], [], []
    for attempt in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-vault-") as tmp:
            raw_time, vault_time = interleaved(Path(tmp), count, eager_truncate=args.eager_truncate)
        raw_times.append(raw_time)
        vault_times.append(vault_time)
        ratios.append(raw_time / vault_time)
        print(f"run {attempt + 1}: raw {raw_time:.3f}s, vault {vault_time:.3f}s", file=sys.stderr)
    label = "vault, WAL truncated per erasure" if args.eager_truncate else "vault"
    head = f"| leases | raw sqlite3 (cycles/s, best) | {label} (cycles/s, best) | vault / raw (median run) |"
    print(head + " per-run ratios |")
    print("| ---: | ---: | ---: | ---: | --- |")
    runs = ", ".join(f"{ratio:.2f}" for ratio in sorted(ratios))
    median = statistics.median(ratios)
    rates = f"{count / min(raw_times):,.0f} | {count / min(vault_times):,.0f}"
    print(f"| {count:,} | {rates} | **{median:.2f}x** | {runs} |")


if __name__ == "__main__":
    main()
