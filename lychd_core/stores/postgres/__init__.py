"""The PostgreSQL backend: a shared memory store and projection cache for a fleet of agents."""

from lychd_core.stores.postgres.cache import PostgresProjectionCache
from lychd_core.stores.postgres.memory import PostgresMemoryStore

__all__ = ["PostgresMemoryStore", "PostgresProjectionCache"]
