"""The typed deployment configuration (TOML) and its check against the registry.

Every model forbids unknown keys. Loading reads with ``tomllib``; writing uses
``tomli-w``. Structural errors come from pydantic with their key path; registry
errors (unknown plugin, revision, options) are collected pre-commit style.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lychd_core.errors import ConfigError, LychdError, MediaTypeError
from lychd_core.families import PluginFamily
from lychd_core.mediatypes import normalize_media_type
from lychd_core.ranking.settings import RankingConfig
from lychd_core.registry import RegisteredPlugin, Registry

SCHEMA_VERSION = 1
DEFAULT_RANKING = (
    {"name": "lexical", "revision": 1, "weight": 2},
    {"name": "symbol-graph", "revision": 1, "weight": 1},
)


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Governors(StrictModel):
    """Bounds applied to every assembled context."""

    turn_window: int = Field(
        default=20,
        strict=True,
        description="Complete message groups of settled history kept at most; <= 0 keeps none.",
        examples=[20],
    )
    char_cap: int = Field(
        default=96_000,
        gt=0,
        strict=True,
        description="Character cap for one context; with a known window the cap is min(cap, chars_per_token x window).",
        examples=[96_000],
    )
    chars_per_token: int = Field(
        default=3,
        gt=0,
        strict=True,
        description="Conservative characters per model token, used to estimate tokens from characters.",
        examples=[3],
    )


class PluginPin(StrictModel):
    """An exact plugin selection: name, revision and the plugin's own options."""

    name: str = Field(min_length=1, description="Exact registered plugin name.", examples=["roles.standard"])
    revision: int = Field(ge=1, strict=True, description="Exact integer revision; never a range.", examples=[1])
    options: dict[str, Any] = Field(
        default_factory=dict, description="Options validated by the plugin's own model.", examples=[{}]
    )


class ProjectionRule(StrictModel):
    """Which projection profile (exact revision) projects one media type."""

    profile: str = Field(min_length=1, description="Exact registered profile name.", examples=["structure.python"])
    revision: int = Field(ge=1, strict=True, description="Exact integer revision of the profile.", examples=[1])
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="Options validated by the profile's own model.",
        examples=[{"include_imports": True}],
    )


class ProjectionConfig(StrictModel):
    """Projection rules keyed by normalized media type, and default bounds."""

    rules: dict[str, ProjectionRule] = Field(
        default_factory=dict,
        description="Normalized media type -> profile rule. A media type with no rule is refused.",
        examples=[{"text/x-python": {"profile": "structure.python", "revision": 1}}],
    )
    max_bytes: int = Field(
        default=2_000_000, gt=0, strict=True, description="Default byte bound per material.", examples=[2_000_000]
    )
    max_chars: int = Field(
        default=96_000, gt=0, strict=True, description="Default character bound per projection.", examples=[96_000]
    )

    @field_validator("rules")
    @classmethod
    def _normalized_keys(cls, rules: dict[str, ProjectionRule]) -> dict[str, ProjectionRule]:
        for key in rules:
            try:
                normal = normalize_media_type(key)
            except MediaTypeError as exc:
                raise ValueError(str(exc)) from exc
            if normal != key:
                raise ValueError(f"rule key {key!r} is not normalized; write {normal!r}")
        return rules


class AssemblyConfig(StrictModel):
    """Defaults for assembling a context when the caller does not say."""

    role: str = Field(
        default="writer", min_length=1, description="Role whose policy filters context.", examples=["writer"]
    )
    window: int | None = Field(
        default=None, gt=0, strict=True, description="Known model context window in tokens, if any.", examples=[32_000]
    )
    reserve_output: int = Field(
        default=4_096, ge=0, strict=True, description="Tokens reserved for the model's output.", examples=[4_096]
    )
    protocol_overhead: int = Field(
        default=0, ge=0, strict=True, description="Tokens reserved for provider protocol framing.", examples=[64]
    )


class StoreConfig(StrictModel):
    """One embedded store."""

    backend: Literal["sqlite"] = Field(default="sqlite", description="Store backend.", examples=["sqlite"])
    path: str = Field(
        min_length=1, description="File path, relative to the state directory.", examples=["memory.sqlite3"]
    )


class StoresConfig(StrictModel):
    """Where lychd keeps its durable state."""

    state_dir: str = Field(
        default=".lychd", min_length=1, description="State directory, relative to the workspace.", examples=[".lychd"]
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
    projection_cache: StoreConfig = Field(
        default_factory=lambda: StoreConfig(path="projections.sqlite3"),
        description="Projection cache store.",
        examples=[{"backend": "sqlite", "path": "projections.sqlite3"}],
    )

    def path_of(self, store: StoreConfig, workspace: Path) -> Path:
        """Absolute path of ``store`` for a workspace root."""
        return (workspace / self.state_dir / store.path).resolve()


class LychdConfig(StrictModel):
    """A deployment configuration: governors, projection rules, plugin pins and stores."""

    schema_version: Literal[1] = Field(description="Configuration schema version.", examples=[1])
    governors: Governors = Field(default_factory=Governors, description="Context bounds.", examples=[{}])
    projection: ProjectionConfig = Field(
        default_factory=ProjectionConfig, description="Projection rules by media type.", examples=[{}]
    )
    role_policy: PluginPin = Field(
        description="The role policy plugin.", examples=[{"name": "roles.standard", "revision": 1}]
    )
    privacy_profile: PluginPin | None = Field(
        default=None, description="The privacy profile plugin, if any.", examples=[None]
    )
    compressors: list[PluginPin] = Field(
        default_factory=list, description="Compressor plugins a caller may request.", examples=[[]]
    )
    assembly: AssemblyConfig = Field(default_factory=AssemblyConfig, description="Assembly defaults.", examples=[{}])
    stores: StoresConfig = Field(default_factory=StoresConfig, description="Embedded stores.", examples=[{}])
    ranking: RankingConfig = Field(
        default_factory=RankingConfig, description="Query-aware ranking of optional material.", examples=[{}]
    )


def format_location(loc: tuple[int | str, ...]) -> str:
    parts = []
    for item in loc:
        text = str(item)
        parts.append(f"[{item}]" if isinstance(item, int) else (f'"{text}"' if "/" in text or "." in text else text))
    return ".".join(parts).replace(".[", "[")


def validation_problems(exc: ValidationError, prefix: tuple[int | str, ...] = ()) -> tuple[str, ...]:
    problems = []
    for error in exc.errors():
        where = format_location(prefix + tuple(error["loc"]))
        message = "unknown key (not allowed here)" if error["type"] == "extra_forbidden" else error["msg"]
        problems.append(f"{where}: {message}")
    return tuple(problems)


def parse_config(data: Mapping[str, Any], source: str = "<config>") -> LychdConfig:
    try:
        return LychdConfig.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc)
        raise ConfigError(f"{source}: invalid configuration:\n  " + "\n  ".join(problems), problems) from None


def load_config(path: str | Path) -> LychdConfig:
    """Read and structurally validate a TOML configuration file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: malformed TOML: {exc}") from None
    return parse_config(data, str(path))


def _drop_empty(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_empty(v) for k, v in value.items() if v not in ({}, [])}
    return value


def dump_config(config: LychdConfig) -> str:
    """TOML text for ``config``; empty option tables and lists are left out."""
    return tomli_w.dumps(_drop_empty(config.model_dump(mode="json", exclude_none=True)))


def default_config() -> LychdConfig:
    """The embedded default, identical to ``profiles/default.toml``."""
    verbatim = {"profile": "verbatim", "revision": 1}
    text_types = [
        "application/json",
        "application/toml",
        "application/yaml",
        "text/markdown",
        "text/plain",
        "text/x-rst",
    ]
    rules: dict[str, Any] = {media_type: verbatim for media_type in text_types}
    rules["text/x-python"] = {"profile": "structure.python", "revision": 1}
    return parse_config(
        {
            "schema_version": SCHEMA_VERSION,
            "projection": {"rules": dict(sorted(rules.items()))},
            "role_policy": {"name": "roles.standard", "revision": 1},
            "ranking": {"profiles": [*DEFAULT_RANKING]},
        },
        "<default>",
    )


@dataclass(frozen=True, slots=True)
class ResolvedPin:
    """A configured plugin resolved against the registry, with validated options."""

    plugin: RegisteredPlugin
    options: BaseModel


def _resolve(
    registry: Registry, family: PluginFamily, name: str, revision: int, options: dict[str, Any], where: str
) -> ResolvedPin:
    found = registry.resolve(family, name, revision)
    try:
        validated = found.obj.options_model.model_validate(options)
    except ValidationError as exc:
        problems = validation_problems(exc)
        raise ConfigError(f"{where}.options rejected by {found.pin}: " + "; ".join(problems)) from None
    return ResolvedPin(found, validated)


def resolve_rule(config: LychdConfig, registry: Registry, media_type: str) -> ResolvedPin:
    """The profile and options for one normalized media type; no rule is a typed refusal."""
    rule = config.projection.rules.get(media_type)
    if rule is None:
        known = ", ".join(sorted(config.projection.rules)) or "none"
        raise MediaTypeError(f"no projection rule for media type {media_type!r} (rules exist for: {known})")
    return _resolve(
        registry,
        PluginFamily.PROJECTION_PROFILE,
        rule.profile,
        rule.revision,
        rule.options,
        f'projection.rules."{media_type}"',
    )


def check_config(config: LychdConfig, registry: Registry) -> None:
    """Resolve every pin in ``config``; raise one ``ConfigError`` listing every problem."""
    problems: list[str] = []

    def attempt(where: str, family: PluginFamily, pin_name: str, revision: int, options: dict[str, Any]) -> None:
        try:
            resolved = _resolve(registry, family, pin_name, revision, options, where)
        except LychdError as exc:
            problems.append(f"{where}: {exc}")
            return
        if family is PluginFamily.PROJECTION_PROFILE:
            media_type = where.split('"')[1]
            if media_type not in resolved.plugin.media_types:
                accepted = ", ".join(resolved.plugin.media_types)
                problems.append(f"{where}: {resolved.plugin.pin} does not accept {media_type} (accepts: {accepted})")

    for media_type, rule in config.projection.rules.items():
        attempt(
            f'projection.rules."{media_type}"',
            PluginFamily.PROJECTION_PROFILE,
            rule.profile,
            rule.revision,
            rule.options,
        )
    pin = config.role_policy
    attempt("role_policy", PluginFamily.ROLE_POLICY, pin.name, pin.revision, pin.options)
    if config.privacy_profile is not None:
        pin = config.privacy_profile
        attempt("privacy_profile", PluginFamily.PRIVACY_PROFILE, pin.name, pin.revision, pin.options)
    for index, pin in enumerate(config.compressors):
        attempt(f"compressors[{index}]", PluginFamily.COMPRESSOR, pin.name, pin.revision, pin.options)
    for index, ranking in enumerate(config.ranking.profiles):
        where = f"ranking.profiles[{index}]"
        attempt(where, PluginFamily.RANKING_PROFILE, ranking.name, ranking.revision, ranking.options)
    if problems:
        raise ConfigError(
            "configuration does not match the installed plugins:\n  " + "\n  ".join(problems), tuple(problems)
        )
