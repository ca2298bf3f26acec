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

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lychd_core.memory.protocol import MemoryStore
    from lychd_core.projection.cache_protocol import ProjectionCacheStore
    from lychd_core.stores.factory import open_memory_store, open_projection_cache
    from lychd_core.stores.postgres import PostgresMemoryStore, PostgresProjectionCache
    from lychd_core.stores.sqlite import ProjectionCache, SqliteMemoryStore

_LAZY = {
    "MemoryStore": "lychd_core.memory.protocol",
    "ProjectionCacheStore": "lychd_core.projection.cache_protocol",
    "open_memory_store": "lychd_core.stores.factory",
    "open_projection_cache": "lychd_core.stores.factory",
    "PostgresMemoryStore": "lychd_core.stores.postgres",
    "PostgresProjectionCache": "lychd_core.stores.postgres",
    "ProjectionCache": "lychd_core.stores.sqlite",
    "SqliteMemoryStore": "lychd_core.stores.sqlite",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'lychd_core.stores' has no attribute {name!r}")


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
