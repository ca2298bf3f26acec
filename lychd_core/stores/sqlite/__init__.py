"""The embedded SQLite backend: the memory store and the projection cache, each one file in the state directory."""

from lychd_core.stores.sqlite.cache import ProjectionCache
from lychd_core.stores.sqlite.memory import SqliteMemoryStore

__all__ = ["ProjectionCache", "SqliteMemoryStore"]
