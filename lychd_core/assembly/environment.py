"""Layer 3: grant-bound environment snapshots shared by exact key, released by lease.

The key is (session, capability binding, grant epoch). The grant id is the epoch, so a
fresh grant observes a fresh snapshot even for the same capability; runs with the same
key share one snapshot, and only the last referencing run's release evicts it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lychd_core.blocks import Block, Layer, Lineage
from lychd_core.errors import LeaseError
from lychd_core.labels import PrivacyClass, PrivatizationLabel


@dataclass(frozen=True, slots=True)
class Grant:
    """The capability chosen to run this model call, with its id and context window."""

    grant_id: str
    capability_key: str | None = None
    warm_capability_keys: tuple[str, ...] = ()
    active_capability_keys: tuple[str, ...] = ()
    max_context: int | None = None
    """The resolved generation profile's window; wins over ``spec_max_context``."""
    spec_max_context: int | None = None
    """The window the specification discovered."""

    def __post_init__(self) -> None:
        if not self.grant_id:
            raise LeaseError("a grant needs a non-empty grant id (it is the environment epoch)")


EnvironmentKey = tuple[str, str, str]


def environment_key(session_id: str, grant: Grant | None) -> EnvironmentKey:
    if grant is None:
        return (session_id, "", "")
    return (session_id, grant.capability_key or "", grant.grant_id)


def environment_facts(grant: Grant | None) -> dict[str, Any]:
    """The environment as data: only the granted capability and sorted warm/active keys."""
    return {
        "capability": None if grant is None else grant.capability_key,
        "warm": [] if grant is None else sorted(grant.warm_capability_keys),
        "active": [] if grant is None else sorted(grant.active_capability_keys),
    }


def copied_facts(facts: dict[str, Any]) -> dict[str, Any]:
    """A caller's own copy of :func:`environment_facts`' dict (a string or ``None`` and two
    lists of strings): changing it cannot change a shared snapshot's facts."""
    return {"capability": facts["capability"], "warm": list(facts["warm"]), "active": list(facts["active"])}


def environment_text(facts: dict[str, Any]) -> str:
    """The environment as the model reads it: one plain line per fact."""

    def listed(keys: list[str]) -> str:
        return ", ".join(keys) if keys else "none"

    return (
        "Environment:\n"
        f"- granted capability: {facts['capability'] or 'none'}\n"
        f"- warm capabilities: {listed(facts['warm'])}\n"
        f"- active capabilities: {listed(facts['active'])}"
    )


def environment_block(session_id: str, grant: Grant | None) -> Block:
    """The environment block: readable text for the model over :func:`environment_facts`
    (the structured form stays in the assembled context's JSON)."""
    key = environment_key(session_id, grant)
    return Block(
        layer=Layer.ENVIRONMENT,
        key=f"environment:{key[1] or 'none'}@{key[2] or 'no-grant'}",
        text=environment_text(environment_facts(grant)),
        label=PrivatizationLabel(privacy_class=PrivacyClass.INTERNAL, weight=0, lineage_known=True),
        lineage=Lineage(profile="environment@1"),
    )


def environment_of(floor: Sequence[Block]) -> Block:
    """The floor's environment block (every assembled floor has exactly one)."""
    return next(block for block in floor if block.layer is Layer.ENVIRONMENT)


@dataclass
class _Snapshot:
    block: Block
    facts: dict[str, Any]
    """What ``block`` says, as data: a shared snapshot keeps the facts of the call that made it."""
    runs: set[str] = field(default_factory=set)


class EnvironmentSnapshots:
    """Snapshots by exact key with per-run leases."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshots: dict[EnvironmentKey, _Snapshot] = {}

    def peek(self, session_id: str, grant: Grant | None) -> Block:
        """The snapshot a run would get, without taking a lease (shared if it exists)."""
        key = environment_key(session_id, grant)
        with self._lock:
            existing = self._snapshots.get(key)
            return existing.block if existing else environment_block(session_id, grant)

    def facts(self, session_id: str, grant: Grant | None, block: Block) -> dict[str, Any]:
        """The facts ``block`` (from :meth:`peek`) states: a shared snapshot's, not ``grant``'s
        current warm and active keys, so what a caller reads agrees with what the model sees."""
        with self._lock:
            existing = self._snapshots.get(environment_key(session_id, grant))
            if existing is not None and existing.block is block:
                return copied_facts(existing.facts)
        return environment_facts(grant)

    def lease(self, run_id: str, session_id: str, grant: Grant | None, block: Block) -> EnvironmentKey:
        key = environment_key(session_id, grant)
        with self._lock:
            snapshot = self._snapshots.setdefault(key, _Snapshot(block, environment_facts(grant)))
            snapshot.runs.add(run_id)
        return key

    def release(self, run_id: str, key: EnvironmentKey) -> bool:
        """Drop ``run_id``'s lease; evict the snapshot after its final reference."""
        with self._lock:
            snapshot = self._snapshots.get(key)
            if snapshot is None or run_id not in snapshot.runs:
                return False
            snapshot.runs.discard(run_id)
            if not snapshot.runs:
                del self._snapshots[key]
            return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._snapshots)
