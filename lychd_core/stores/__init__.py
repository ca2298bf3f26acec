"""Store protocols shared by the SQLite and PostgreSQL backends.

Open a configured store with :mod:`lychd_core.stores.factory` (``open_memory_store``,
``open_projection_cache``).
"""

from lychd_core.stores.protocols import MemoryStore, ProjectionCacheStore

__all__ = ["MemoryStore", "ProjectionCacheStore"]
