"""Open the configured stores of a workspace, whichever backend the configuration names."""

from __future__ import annotations

import os
from pathlib import Path

from lychd_core.config import LychdConfig
from lychd_core.config.stores import StoreConfig
from lychd_core.errors import ConfigError, LychdError, MemoryStoreError
from lychd_core.memory.protocol import MemoryStore
from lychd_core.projection.cache_protocol import ProjectionCacheStore
from lychd_core.state.directory import prepare_state_dir
from lychd_core.state.paths import store_file

DEFAULT_SCHEMA = "lychd"
DEFAULT_KEY_NAME = "cache.key"


def dsn_from_environment(store: StoreConfig, where: str) -> str:
    """The DSN held by the environment variable ``store.dsn_env`` names (never by the config file)."""
    name = store.dsn_env
    if name is None:
        raise ConfigError(f"{where}: backend postgresql needs dsn_env naming the environment variable with the DSN")
    dsn = os.environ.get(name)
    if not dsn:
        raise ConfigError(
            f"{where}: environment variable {name} is not set; export {name}=postgresql://USER@HOST:PORT/DB "
            "(put the password in ~/.pgpass or PGPASSWORD, never in the config file)"
        )
    return dsn


def describe_store(config: LychdConfig, store: StoreConfig, workspace: Path) -> str:
    """Where a store lives, for messages (a DSN is never shown, only the variable that holds it)."""
    if store.backend == "postgresql":
        return f"postgresql (${store.dsn_env}, schema {store.schema_name or DEFAULT_SCHEMA})"
    return str(config.stores.path_of(store, workspace))


def open_memory_store(config: LychdConfig, workspace: Path | str, *, create: bool) -> MemoryStore:
    """The configured memory store; ``create=False`` never creates one (reads refuse a missing store)."""
    store = config.stores.memory
    if store.backend == "postgresql":
        from lychd_core.stores.postgres.memory import PostgresMemoryStore

        dsn = dsn_from_environment(store, "stores.memory")
        return PostgresMemoryStore.open(dsn, schema=store.schema_name or DEFAULT_SCHEMA, create=create)
    from lychd_core.stores.sqlite.memory import SqliteMemoryStore

    path = config.stores.path_of(store, Path(workspace))
    if create:
        prepare_for(config, workspace, path)
    try:
        return SqliteMemoryStore.open(path, create=create)
    except LychdError:  # typed already (some also inherit OSError)
        raise
    except OSError as exc:  # e.g. a file where the state directory should be
        raise MemoryStoreError(f"{path}: cannot open the memory store: {exc.strerror or exc}") from None


def prepare_for(config: LychdConfig, workspace: Path | str, path: Path) -> None:
    """Create and mark the state directory when a store is about to write ``path`` inside it."""
    state_dir = config.stores.state_path(Path(workspace))
    if path.is_relative_to(state_dir):
        prepare_state_dir(state_dir)


def cache_key_path(config: LychdConfig, workspace: Path | str) -> Path:
    """The projection cache's MAC key file: configured, or ``cache.key`` in the state directory."""
    stores = config.stores
    key_path = stores.projection_cache.key_path or DEFAULT_KEY_NAME
    return store_file(stores.state_path(Path(workspace)), key_path, "projection_cache.key_path")


def open_projection_cache(config: LychdConfig, workspace: Path | str) -> ProjectionCacheStore:
    """The configured projection cache (opened lazily on first use)."""
    store = config.stores.projection_cache
    key_path = cache_key_path(config, workspace)
    if not key_path.is_relative_to(config.stores.state_path(Path(workspace))) and not key_path.exists():
        # A key outside the state directory is provisioned by its owner (a fleet shares one):
        # creating it silently would give each worker its own key, or write a system file.
        raise ConfigError(
            f"stores.projection_cache.key_path: {key_path} does not exist; lychd creates a key only in the "
            f"state directory. Create it once (head -c 32 /dev/urandom > {key_path}; chmod 600 {key_path}) "
            "and give every worker the same file, or leave key_path unset"
        )
    prepare_for(config, workspace, key_path)
    if store.backend == "postgresql":
        from lychd_core.stores.postgres.cache import PostgresProjectionCache

        dsn = dsn_from_environment(store, "stores.projection_cache")
        return PostgresProjectionCache(dsn, schema=store.schema_name or DEFAULT_SCHEMA, key_path=key_path)
    from lychd_core.stores.sqlite.cache import ProjectionCache

    return ProjectionCache(config.stores.path_of(store, Path(workspace)), key_path=key_path)
