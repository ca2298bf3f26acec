"""Several processes claiming at once, and a process killed mid-claim or mid-erasure."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path
from typing import Any

from lychd_core.privacy.vault import LeaseState, rehydrate
from tests.support import vault_workers
from tests.support.vaults import SCHEMA, claim_for, model_return, new_lease, open_vault, tokens_of

SPAWN = multiprocessing.get_context("spawn")


def _lease(tmp: Path) -> tuple[str, Any]:
    with open_vault(tmp) as vault:
        grant = new_lease(vault)
    return grant.lease_id, model_return(*tokens_of(grant))


def test_exactly_one_of_several_processes_wins_a_claim(tmp_path: Path) -> None:
    lease_id, returned = _lease(tmp_path)
    start, results = SPAWN.Event(), SPAWN.Queue()
    workers = [
        SPAWN.Process(target=vault_workers.claim_race, args=(tmp_path, lease_id, who, returned, start, results))
        for who in range(4)
    ]
    for worker in workers:
        worker.start()
    time.sleep(1.0)  # let every worker open the vault before the race starts
    start.set()
    outcomes = sorted(results.get(timeout=600) for _ in workers)  # hang guards only
    for worker in workers:
        worker.join(timeout=600)
    assert [outcome for _, outcome in outcomes].count("won") == 1, outcomes
    assert {outcome for _, outcome in outcomes} == {"won", "conflict"}, outcomes
    winner = next(who for who, outcome in outcomes if outcome == "won")
    with open_vault(tmp_path) as vault:
        view = vault.get(lease_id)
    assert view.state is LeaseState.CLAIMED and view.claim is not None
    assert view.claim.principal == f"agent-{winner}"


def _kill_when_inside(target: Any, tmp: Path, lease_id: str, returned: Any) -> None:
    marker = tmp / "inside.marker"
    worker = SPAWN.Process(target=target, args=(tmp, lease_id, returned, marker))
    worker.start()
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert worker.is_alive() and time.monotonic() < deadline, "worker never reached the kill point"
        time.sleep(0.02)
    assert worker.pid is not None
    os.kill(worker.pid, signal.SIGKILL)
    worker.join(timeout=30)
    assert worker.exitcode == -signal.SIGKILL


def test_kill_9_mid_claim_leaves_the_lease_active_and_claimable(tmp_path: Path) -> None:
    lease_id, returned = _lease(tmp_path)
    _kill_when_inside(vault_workers.claim_then_hang, tmp_path, lease_id, returned)
    with open_vault(tmp_path) as vault:
        view = vault.get(lease_id)
        assert view.state is LeaseState.ACTIVE and view.claim is None and view.key_present
        claim = claim_for(returned)
        assert vault.claim(lease_id, claim).state is LeaseState.CLAIMED
        assert rehydrate(vault, lease_id, claim, returned, SCHEMA).receipt.lease_id == lease_id


def test_kill_9_between_consume_and_key_destruction_is_finished_on_open(tmp_path: Path) -> None:
    lease_id, returned = _lease(tmp_path)
    with open_vault(tmp_path) as vault:
        vault.claim(lease_id, claim_for(returned))
    _kill_when_inside(vault_workers.consume_then_hang, tmp_path, lease_id, returned)
    with open_vault(tmp_path) as vault:
        view = vault.get(lease_id)
        assert view.state is LeaseState.CONSUMED and not view.key_present
        assert lease_id not in vault.keys.lease_ids()
