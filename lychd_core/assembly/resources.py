"""What an orchestrator keeps between assemblies for one configuration: role profiles and
the token counter (each asked once), the projector with its cache (opened on first use,
closed with the orchestrator), and memory retrieval from the configured store.

A role policy and a counter are functions of their pins and options, so replacing the
configuration or the registry asks again; nothing here changes what an assembly decides.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from lychd_core.blocks import Block
from lychd_core.config import LychdConfig
from lychd_core.errors import AssemblyError
from lychd_core.memory import MemoryQuery, MemoryScope, RetrievalPlan
from lychd_core.projection.materials import Workspace
from lychd_core.projection.projector import Projector
from lychd_core.registry import Registry
from lychd_core.roles import RoleProfile
from lychd_core.stores.factory import open_memory_store, open_projection_cache
from lychd_core.tokens import BoundCounter
from lychd_core.tokens.persisted import attach_counts
from lychd_core.tokens.resolve import resolve_counter

SCOPE_FIELDS = ("project", "workspace", "repository", "actor")


class RoleProfiles:
    """The configured role policy's profile of each role, asked once per configuration
    (crossing the plugin boundary costs a thread per call)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._for: tuple[object, object] = (None, None)
        self._known: dict[str, RoleProfile] = {}

    def get(self, config: LychdConfig, registry: Registry, role: str) -> RoleProfile:
        with self._lock:
            if self._for[0] is not config or self._for[1] is not registry:
                self._for, self._known = (config, registry), {}
            known = self._known
        profile = known.get(role)
        if profile is None:
            profile = known.setdefault(role, config.role_profile(role, registry))
        return profile


class Counters:
    """The configured ``[tokens] counter``, bound once per configuration (its cache lives with it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bound: tuple[object, object, BoundCounter | None] = (None, None, None)

    def get(self, config: LychdConfig, registry: Registry, workspace: Workspace | None) -> BoundCounter:
        with self._lock:
            if self._bound[0] is config and self._bound[1] is registry and self._bound[2] is not None:
                return self._bound[2]
        state = config.stores.state_path(workspace.root) if workspace is not None else None
        counter = resolve_counter(config, registry, state_dir=state)
        with self._lock:
            self._bound = (config, registry, counter)
        return counter


class ProjectorHome:
    """The projector for material references: opened with the configured projection cache on
    first use, closed with its owner."""

    def __init__(self, projector: Projector | None = None) -> None:
        self._projector = projector

    def get(self, config: LychdConfig, registry: Registry, workspace: Workspace | None) -> Projector:
        if self._projector is None:
            if workspace is None:
                raise AssemblyError("material references need a workspace; pass workspace= to the orchestrator")
            cache = open_projection_cache(config, workspace.root)
            self._projector = Projector(config, registry, workspace, cache)
        return self._projector

    def attach_counts(self, counter: BoundCounter, blocks: Iterable[Block]) -> None:
        """The blocks' token counts read from the projection cache, the rest counted and stored
        (``lychd_core.tokens.persisted``); nothing without a projector made for this run."""
        if self._projector is not None and counter.identity:
            attach_counts(self._projector.cache, counter, blocks)

    def close(self) -> None:
        if self._projector is not None and self._projector.cache is not None:
            self._projector.cache.close()


def retrieve_memory(
    config: LychdConfig, workspace: Workspace | None, profile: RoleProfile, now: int | None, query: dict[str, Any]
) -> RetrievalPlan:
    """Retrieve from the configured memory store; ``query`` holds the ``MemoryQuery`` fields and
    the scope fields. The asking role filters through ``profile``, never through the scope."""
    if workspace is None:
        raise AssemblyError("memory retrieval needs a workspace; pass workspace= to the orchestrator")
    scope = MemoryScope(**{name: query.pop(name, None) for name in SCOPE_FIELDS})
    with open_memory_store(config, workspace.root, create=False) as store:
        observed = store.last_observation() if now is None else now
        return store.query(MemoryQuery(scope=scope, now=observed, role_profile=profile, **query))
