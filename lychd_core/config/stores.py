"""The ``[stores]`` table: where lychd keeps its durable state, and which backend holds it.

Kept apart from ``lychd_core.config`` (which embeds it) so a store never imports the plugin registry.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StoreConfig(StrictModel):
    """One store: an embedded SQLite file, or (memory and projection cache) a shared PostgreSQL database."""

    backend: Literal["sqlite", "postgresql"] = Field(
        default="sqlite",
        description="Store backend: sqlite (a file, the default) or postgresql (shared by a fleet).",
        examples=["sqlite"],
    )
    path: str | None = Field(
        default=None,
        min_length=1,
        description="SQLite file, relative to the state directory (no '..'), or an absolute path you chose.",
        examples=["memory.sqlite3"],
    )
    dsn_env: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$",
        description="postgresql: name of the environment variable holding the DSN (never the DSN itself).",
        examples=["LYCHD_MEMORY_DSN"],
    )
    schema_name: str | None = Field(
        default=None,
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="postgresql: the database schema that holds this store's tables (default lychd).",
        examples=["lychd"],
    )
    key_path: str | None = Field(
        default=None,
        min_length=1,
        description="Projection cache: file holding the MAC key (default cache.key in the state directory).",
        examples=["cache.key"],
    )

    @model_validator(mode="before")
    @classmethod
    def _no_secrets(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            for key in sorted(set(data) & SECRET_KEYS):
                raise ValueError(
                    f"{key!r} is not allowed: a config file never holds a DSN or password; "
                    'set dsn_env = "NAME" and export NAME=postgresql://... in the environment'
                )
            env = data.get("dsn_env")
            if isinstance(env, str) and ("://" in env or "=" in env or "@" in env):
                raise ValueError(
                    "dsn_env names an environment variable (e.g. LYCHD_MEMORY_DSN), never the DSN itself: "
                    "a config file must not hold a connection string or password"
                )
        return data

    @model_validator(mode="after")
    def _backend_fields(self) -> StoreConfig:
        for name, value in (("path", self.path), ("key_path", self.key_path)):
            if value is not None and "://" in value:
                raise ValueError(f"{name} looks like a connection string; name a file, and put DSNs in dsn_env")
            if value is not None and ".." in Path(value).parts:
                raise ValueError(f"{name} {value!r} climbs out of the state directory with '..'; use an absolute path")
        if self.backend == "sqlite" and self.path is None:
            raise ValueError('backend "sqlite" needs path (a file in the state directory)')
        if self.backend == "postgresql" and self.dsn_env is None:
            raise ValueError('backend "postgresql" needs dsn_env, the environment variable that holds the DSN')
        return self


SECRET_KEYS = frozenset({"dsn", "password", "conninfo", "url", "uri", "connection_string"})


class StoresConfig(StrictModel):
    """Where lychd keeps its durable state."""

    state_dir: str = Field(
        default=".lychd",
        min_length=1,
        description="State directory, relative to the workspace (no '..'), or absolute.",
        examples=[".lychd"],
    )
    memory: StoreConfig = Field(
        default_factory=lambda: StoreConfig(path="memory.sqlite3"),
        description="Derived-memory store.",
        examples=[{"backend": "sqlite", "path": "memory.sqlite3"}],
    )
    vault: StoreConfig = Field(
        default_factory=lambda: StoreConfig(path="vault.sqlite3"),
        description="Pseudonym-map vault store.",
        examples=[{"backend": "sqlite", "path": "vault.sqlite3"}],
    )
    vault_keys: StoreConfig = Field(
        default_factory=lambda: StoreConfig(path="vault-keys/vault.keys.sqlite3"),
        description="The vault's key store (KEKs, erasure secrets): its own directory, never backed up.",
        examples=[{"backend": "sqlite", "path": "vault-keys/vault.keys.sqlite3"}],
    )
    projection_cache: StoreConfig = Field(
        default_factory=lambda: StoreConfig(path="projections.sqlite3"),
        description="Projection cache store.",
        examples=[{"backend": "sqlite", "path": "projections.sqlite3"}],
    )

    @field_validator("state_dir")
    @classmethod
    def _state_inside_workspace(cls, value: str) -> str:
        if ".." in Path(value).parts:
            raise ValueError(f"state_dir {value!r} climbs out of the workspace with '..'; use an absolute path")
        return value

    @field_validator("vault", "vault_keys")
    @classmethod
    def _vault_is_local(cls, value: StoreConfig) -> StoreConfig:
        if value.backend != "sqlite":
            raise ValueError("the pseudonym vault is a local SQLite file; postgresql is not supported for it")
        return value

    def state_path(self, workspace: Path) -> Path:
        """The resolved state directory of a workspace."""
        return (workspace / self.state_dir).resolve()

    def path_of(self, store: StoreConfig, workspace: Path) -> Path:
        """Absolute path of an SQLite ``store``; a relative path must stay inside the state directory."""
        from lychd_core.state.paths import store_file

        return store_file(self.state_path(workspace), store.path, "path")
