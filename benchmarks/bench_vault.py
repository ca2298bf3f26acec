"""Pseudonym-map vault: lease create → claim → rehydrate → consume per second vs raw SQLite.

    python benchmarks/bench_vault.py            # 200 leases (quick)
    python benchmarks/bench_vault.py --full     # 1,000 leases

Vault: each lease is created (erasure secret in the key store, then the sealed lease
row), claimed, and rehydrated, which consumes it and destroys its key (row blobs nulled,
erasure secret deleted, both WALs checkpointed). Every commit is durable (WAL,
``synchronous=FULL``), as in production. Raw: the same transactions on the same two
files with the same row shapes and sizes and the same pragmas, without cryptography,
MACs, validation or checkpoints: insert secret, insert lease row, update claim, update
to consumed with blobs nulled, delete secret. Best of 3 interleaved runs each;
ratio = vault rate / raw rate (the per-run ratios are printed too).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lychd_core.privacy.vault import Vault, rehydrate
from lychd_core.privacy.vault.sqlite import connect
from tests.support.vaults import SCHEMA, VALUES, Clock, candidate, claim_for, lease_request, model_return


def run_vault(workdir: Path, count: int) -> float:
    clock = Clock()
    request = lease_request()
    with Vault.open(workdir / "state" / "vault.sqlite3", workdir / "keys" / "vault.keys", clock=clock) as vault:
        started = time.perf_counter()
        for _ in range(count):
            grant = vault.create_lease(request, VALUES, candidate)
            owner = grant.candidate.split("owner=")[1].split(";")[0]
            contact = grant.candidate.split("contact=")[1].split(";")[0]
            returned = model_return(owner, contact)
            claim = claim_for(returned)
            vault.claim(grant.lease_id, claim)
            result = rehydrate(vault, grant.lease_id, claim, returned, SCHEMA)
            assert result.receipt.substitutions == {"email": 1, "owner": 1}
        elapsed = time.perf_counter() - started
        assert vault.counts()["CONSUMED"] == count and vault.keys.lease_ids() == vault.pooled_ids
    return elapsed


def run_raw(workdir: Path, count: int) -> float:
    keys = connect(workdir / "raw-keys" / "k.sqlite3", busy_timeout_ms=30_000, private=True)
    db = connect(workdir / "raw-state" / "v.sqlite3", busy_timeout_ms=30_000, private=True)
    keys.execute("CREATE TABLE s (id TEXT PRIMARY KEY, epoch INTEGER, secret BLOB, created INTEGER)")
    db.execute(
        "CREATE TABLE l (id TEXT PRIMARY KEY, body TEXT, state TEXT, claim TEXT, changed INTEGER, expires INTEGER,"
        " wn BLOB, wd BLOB, mn BLOB, mc BLOB, mac BLOB)"
    )
    db.execute("CREATE TABLE n (nonce BLOB PRIMARY KEY) WITHOUT ROWID")
    body = json.dumps(lease_request().model_dump(mode="json")) + "x" * 200
    claim = json.dumps(claim_for({}).model_dump(mode="json"))

    def tx(conn: sqlite3.Connection, statement: str, *args: Any) -> None:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(statement, args)
        conn.execute("COMMIT")

    started = time.perf_counter()
    for i in range(count):
        lease_id = f"lease_{i:032x}"
        tx(keys, "INSERT INTO s VALUES (?, 1, ?, 0)", lease_id, os.urandom(32))
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT INTO n VALUES (?)", [(os.urandom(12),), (os.urandom(12),)])
        db.execute(
            "INSERT INTO l VALUES (?,?,'ACTIVE',NULL,0,0,?,?,?,?,?)",
            (lease_id, body, os.urandom(12), os.urandom(48), os.urandom(12), os.urandom(110), os.urandom(32)),
        )
        db.execute("COMMIT")
        tx(db, "UPDATE l SET state='CLAIMED', claim=?, mac=? WHERE id=? AND state='ACTIVE'", claim, b"m" * 32, lease_id)
        consume = "UPDATE l SET state='CONSUMED', wn=NULL, wd=NULL, mn=NULL, mc=NULL WHERE id=? AND state='CLAIMED'"
        tx(db, consume, lease_id)
        tx(keys, "DELETE FROM s WHERE id=?", lease_id)
    elapsed = time.perf_counter() - started
    keys.close()
    db.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="1,000 leases instead of 200")
    args = parser.parse_args()
    count = 1_000 if args.full else 200
    vault_times, raw_times = [], []
    for attempt in range(3):
        with tempfile.TemporaryDirectory(prefix="bench-vault-") as tmp:
            raw_times.append(run_raw(Path(tmp), count))
            vault_times.append(run_vault(Path(tmp), count))
        print(f"run {attempt + 1}: raw {raw_times[-1]:.3f}s, vault {vault_times[-1]:.3f}s", file=sys.stderr)
    vault, raw = min(vault_times), min(raw_times)
    paired = sorted(r / v for r, v in zip(raw_times, vault_times, strict=True))
    print("| leases | raw sqlite3 (cycles/s) | vault (cycles/s) | vault / raw (best) | per-run ratios |")
    print("| ---: | ---: | ---: | ---: | --- |")
    runs = ", ".join(f"{ratio:.2f}" for ratio in paired)
    print(f"| {count:,} | {count / raw:,.0f} | {count / vault:,.0f} | **{raw / vault:.2f}x** | {runs} |")


if __name__ == "__main__":
    main()
