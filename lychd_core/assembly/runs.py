"""The run cache: each active run's retained assembly and the environment lease it holds.

An assembly is retained only after every check passed, so a refused one leaves the cache
and the leases as they were; releasing a run drops both (idempotent, as in the reference).
"""

from __future__ import annotations

import threading

from lychd_core.assembly.context import AssembledContext
from lychd_core.assembly.environment import EnvironmentKey, EnvironmentSnapshots, Grant
from lychd_core.blocks import Block
from lychd_core.errors import LeaseError


class RunCache:
    """Retained assemblies by run id, each holding a lease on its environment snapshot."""

    def __init__(self, environments: EnvironmentSnapshots) -> None:
        self.environments = environments
        self._lock = threading.Lock()
        self._runs: dict[str, tuple[AssembledContext, EnvironmentKey]] = {}

    def get(self, run_id: str) -> AssembledContext:
        """The retained assembly of an active run; ``LeaseError`` when there is none."""
        with self._lock:
            found = self._runs.get(run_id)
        if found is None:
            raise LeaseError(f"run {run_id!r} has no retained assembly (never assembled, or already released)")
        return found[0]

    def retain(self, assembled: AssembledContext, grant: Grant | None, environment: Block) -> None:
        """Keep ``assembled`` and lease ``environment``, the snapshot its floor shows."""
        key = self.environments.lease(assembled.run_id, assembled.session_id, grant, environment)
        with self._lock:
            previous = self._runs.get(assembled.run_id)
            self._runs[assembled.run_id] = (assembled, key)
        if previous is not None and previous[1] != key:
            self.environments.release(assembled.run_id, previous[1])

    def release(self, run_id: str) -> None:
        """Terminal settlement: drop the run's assembly and its environment lease (no-op when none)."""
        with self._lock:
            found = self._runs.pop(run_id, None)
        if found is not None:
            self.environments.release(run_id, found[1])

    def active(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._runs)
