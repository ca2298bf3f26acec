"""The embedded SQLite backend: the memory store and the projection cache, each one file in the state directory.

Names load on first use: a command that only projects does not load the memory store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lychd_core.lazy import lazy_attribute

if TYPE_CHECKING:
    from lychd_core.stores.sqlite.cache import ProjectionCache
    from lychd_core.stores.sqlite.memory import SqliteMemoryStore

_EXPORTS = {
    "lychd_core.stores.sqlite.cache": "ProjectionCache",
    "lychd_core.stores.sqlite.memory": "SqliteMemoryStore",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, name, _EXPORTS)


__all__ = ["ProjectionCache", "SqliteMemoryStore"]
