"""Every store backend, over the contracts its domain defines.

- :mod:`lychd_core.stores.sqlite`: the embedded default (memory store, projection cache);
- :mod:`lychd_core.stores.postgres`: a shared backend for a fleet of agents;
- :mod:`lychd_core.stores.factory`: opens the configured one (``open_memory_store``,
  ``open_projection_cache``); :mod:`lychd_core.stores.admission` holds the admission rules
  both memory backends apply, :mod:`lychd_core.stores.copy` copies between them.

The contracts are :class:`lychd_core.memory.protocol.MemoryStore` and
:class:`lychd_core.projection.cache_protocol.ProjectionCacheStore`. Names are exported
lazily so that importing one backend does not load the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lychd_core.lazy import lazy_attribute

if TYPE_CHECKING:
    from lychd_core.memory.protocol import MemoryStore
    from lychd_core.projection.cache_protocol import ProjectionCacheStore
    from lychd_core.stores.factory import open_memory_store, open_projection_cache
    from lychd_core.stores.postgres import PostgresMemoryStore, PostgresProjectionCache
    from lychd_core.stores.sqlite import ProjectionCache, SqliteMemoryStore

_EXPORTS = {
    "lychd_core.memory.protocol": "MemoryStore",
    "lychd_core.projection.cache_protocol": "ProjectionCacheStore",
    "lychd_core.stores.factory": "open_memory_store open_projection_cache",
    "lychd_core.stores.postgres": "PostgresMemoryStore PostgresProjectionCache",
    "lychd_core.stores.sqlite": "ProjectionCache SqliteMemoryStore",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, name, _EXPORTS)


__all__ = [
    "MemoryStore",
    "PostgresMemoryStore",
    "PostgresProjectionCache",
    "ProjectionCache",
    "ProjectionCacheStore",
    "SqliteMemoryStore",
    "open_memory_store",
    "open_projection_cache",
]
