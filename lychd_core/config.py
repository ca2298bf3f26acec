"""The typed deployment configuration (TOML) and its check against the registry.

Every model forbids unknown keys. Loading reads with ``tomllib``; writing uses
``tomli-w``. Structural errors come from pydantic with their key path; registry
errors (unknown plugin, revision, options) are collected pre-commit style.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lychd_core.errors import ConfigError, LychdError, MediaTypeError, PluginCallError
from lychd_core.families import PluginFamily
from lychd_core.inputs import parse_toml, read_input_text
from lychd_core.mediatypes import EXTENSIONS, FILE_NAMES, file_key_kind, known_text_types, normalize_media_type
from lychd_core.plugins import call_plugin
from lychd_core.privacy.settings import EgressConfig, LabelRule
from lychd_core.ranking.settings import RankingConfig
from lychd_core.registry import RegisteredPlugin, Registry, get_registry
from lychd_core.roles import RoleProfile
from lychd_core.stores.settings import StoresConfig

SCHEMA_VERSION = 1
MAX_CONFIG_BYTES = 1 << 20
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
    time_limit_seconds: float = Field(
        default=120.0,
        gt=0,
        le=86_400,
        strict=True,
        description="Time limit of one profile call, in seconds: past it the worker process running the profile is "
        "killed and the material is unavailable (a required one refuses the run).",
        examples=[120],
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


class MediaTypeEntry(StrictModel):
    """A declared media type written as a table, to say it overrides the core's mapping."""

    media_type: str = Field(min_length=1, description="Normalized media type.", examples=["text/x-toy"])
    override: bool = Field(
        default=False, strict=True, description="Required when the core maps this key differently.", examples=[True]
    )


def _check_media_types(entries: dict[str, str | MediaTypeEntry]) -> dict[str, str | MediaTypeEntry]:
    for key, entry in entries.items():
        media_type, override = (entry, False) if isinstance(entry, str) else (entry.media_type, entry.override)
        try:
            kind = file_key_kind(key)
            normal = normalize_media_type(media_type)
        except MediaTypeError as exc:
            raise ValueError(f"{key!r}: {exc}") from exc
        if normal != media_type:
            raise ValueError(f"{key!r}: media type {media_type!r} is not normalized; write {normal!r}")
        core = (EXTENSIONS if kind == "extension" else FILE_NAMES).get(key)
        if core is not None and core != media_type and not override:
            raise ValueError(
                f"{key!r}: the core maps it to {core!r}; to map it to {media_type!r} instead write "
                f'{{ media_type = "{media_type}", override = true }}'
            )
        if override and (core is None or core == media_type):
            said = "does not map it" if core is None else f"maps it to {core!r} already"
            raise ValueError(f"{key!r}: override = true, but the core {said}; drop override")
    return entries


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


class CompressionConfig(StrictModel):
    """When compression runs and which compressors run: declared, never hidden."""

    compressors: list[PluginPin] = Field(
        default_factory=list,
        description="Pinned compressors, run in this order before selection.",
        examples=[[{"name": "compress.tool-output-elision", "revision": 2}]],
    )
    placement: Literal["never", "over-budget"] = Field(
        default="never",
        description="'never', or 'over-budget': only when optional material would otherwise be omitted.",
        examples=["over-budget"],
    )
    max_chars: int = Field(
        default=4_000, gt=0, strict=True, description="Largest content of one derived node.", examples=[4_000]
    )
    scan_groups: int = Field(
        default=20,
        ge=0,
        strict=True,
        description="Settled groups beyond the turn window offered to compressors as sources.",
        examples=[20],
    )


class LychdConfig(StrictModel):
    """A deployment configuration: governors, projection rules, plugin pins and stores."""

    schema_version: Literal[1] = Field(description="Configuration schema version.", examples=[1])
    governors: Governors = Field(default_factory=Governors, description="Context bounds.", examples=[{}])
    projection: ProjectionConfig = Field(
        default_factory=ProjectionConfig, description="Projection rules by media type.", examples=[{}]
    )
    media_types: dict[str, str | MediaTypeEntry] = Field(
        default_factory=dict,
        description="Exact file names and extensions -> media type; decides before profiles' declarations and "
        "the core's tables. Departing from a core mapping needs override = true.",
        examples=[{".toy": "text/x-toy", ".h": {"media_type": "text/x-c++", "override": True}}],
    )
    role_policy: PluginPin = Field(
        description="The role policy plugin.", examples=[{"name": "roles.standard", "revision": 1}]
    )
    privacy_profile: PluginPin | None = Field(
        default=None, description="The privacy profile plugin, if any.", examples=[None]
    )
    compression: CompressionConfig = Field(
        default_factory=CompressionConfig, description="Compression before selection.", examples=[{}]
    )
    assembly: AssemblyConfig = Field(default_factory=AssemblyConfig, description="Assembly defaults.", examples=[{}])
    stores: StoresConfig = Field(default_factory=StoresConfig, description="Embedded stores.", examples=[{}])
    ranking: RankingConfig = Field(
        default_factory=RankingConfig, description="Query-aware ranking of optional material.", examples=[{}]
    )
    labels: list[LabelRule] = Field(
        default_factory=list,
        description="Ordered label rules (path glob -> label); first match wins; unmatched material stays "
        "restricted with unknown lineage.",
        examples=[[{"path": "src/**", "privacy_class": "internal"}]],
    )
    egress: EgressConfig = Field(
        default_factory=EgressConfig,
        description="Egress targets checked before every model call.",
        examples=[{"default_target": "local"}],
    )

    _media_types_checked = field_validator("media_types")(_check_media_types)

    def declared_media_types(self) -> dict[str, str]:
        """``[media_types]`` as key -> media type."""
        return {k: v if isinstance(v, str) else v.media_type for k, v in self.media_types.items()}

    def role_profile(self, role: str, registry: Registry | None = None) -> RoleProfile:
        """One call: the profile of ``role`` from the pinned ``role_policy``, its options
        validated (``ConfigError`` names what the policy refused), the policy called
        behind the plugin boundary; ``registry`` defaults to the process-wide one."""
        return role_profile(self, registry or get_registry(), role)


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
    text = read_input_text(str(path), what="configuration", max_bytes=MAX_CONFIG_BYTES, error=ConfigError)
    return parse_config(parse_toml(text, source=str(path), error=ConfigError), str(path))


def _drop_empty(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_empty(v) for k, v in value.items() if v not in ({}, [])}
    if isinstance(value, list):
        return [_drop_empty(item) for item in value]
    return value


def dump_config(config: LychdConfig) -> str:
    """TOML text for ``config``; empty option tables and lists are left out."""
    return tomli_w.dumps(_drop_empty(config.model_dump(mode="json", exclude_none=True)))


# This repository's own material is public source (its example vulnerability report is
# private); edit these rules for yours.
DEFAULT_LABELS: list[dict[str, Any]] = [
    {"path": "/tests/fixtures/privacy/**", "privacy_class": "private", "categories": ["vulnerability-report"]}
] + [
    {"path": f"/{path}", "privacy_class": "public", "categories": [category], "subjects": ["lychd-core"]}
    for path, category in (
        ("lychd_core/**", "source-code"),
        ("plugins/**", "source-code"),
        ("tests/**", "source-code"),
        ("benchmarks/**", "source-code"),
        ("docs/**", "documentation"),
        ("profiles/**", "configuration"),
        ("README.md", "documentation"),
    )
]
DEFAULT_EGRESS: dict[str, Any] = {
    "default_target": "local",
    "targets": {"hosted": {"remote": True, "max_class": "internal", "blocking_constraints": ["local-only"]}},
}
STRUCTURE_PROFILES = {
    "text/x-python": "structure.python",
    "text/javascript": "structure.javascript",
    "text/x-typescript": "structure.typescript",
    "text/x-tsx": "structure.typescript",
    "text/x-go": "structure.go",
    "text/x-rust": "structure.rust",
    "text/x-java": "structure.java",
}
STRUCTURE_REVISIONS = {"structure.javascript": 3, "structure.typescript": 3, "structure.go": 2, "structure.rust": 2}
"""Structure profiles past revision 1 (their outlines changed); the rest are at 1."""


DEFAULT_COMPRESSORS = (("tool-output-elision", 2), ("verbatim-to-structure", 1), ("history-prefix-digest", 1))


def default_config() -> LychdConfig:
    """The embedded default, identical to ``profiles/default.toml``."""
    # Every text kind the core knows: its first-party structure profile, else verbatim.
    rules: dict[str, Any] = {kind: {"profile": "verbatim", "revision": 1} for kind in known_text_types()}
    rules.update(
        {
            kind: {"profile": name, "revision": STRUCTURE_REVISIONS.get(name, 1)}
            for kind, name in STRUCTURE_PROFILES.items()
        }
    )
    return parse_config(
        {
            "schema_version": SCHEMA_VERSION,
            "projection": {"rules": dict(sorted(rules.items()))},
            "role_policy": {"name": "roles.standard", "revision": 1},
            "privacy_profile": {"name": "closed-diagnostic", "revision": 1},
            "compression": {
                "compressors": [
                    {"name": f"compress.{name}", "revision": revision} for name, revision in DEFAULT_COMPRESSORS
                ]
            },
            "labels": DEFAULT_LABELS,
            "egress": DEFAULT_EGRESS,
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
    except RecursionError:
        raise ConfigError(f"{where}.options of {found.pin} are nested too deeply") from None
    except Exception as exc:  # a plugin's own validator crashed: its fault, typed and named
        raise PluginCallError(
            f"options model of {found.pin} from {found.distribution} raised {type(exc).__name__}: {exc}"
        ) from exc
    return ResolvedPin(found, validated)


def role_profile(config: LychdConfig, registry: Registry, role: str) -> RoleProfile:
    """The configured role policy's profile of ``role``: options validated, the policy called
    behind the plugin boundary (typed errors, time limit), its answer checked."""
    pin = config.role_policy
    resolved = _resolve(registry, PluginFamily.ROLE_POLICY, pin.name, pin.revision, pin.options, "role_policy")
    plugin = resolved.plugin
    what = f"role policy {plugin.pin} profile({role!r})"
    profile = call_plugin(plugin.distribution, what, plugin.obj.profile, role, resolved.options)
    if not isinstance(profile, RoleProfile):
        raise PluginCallError(f"{what} from {plugin.distribution} returned {type(profile).__name__}, not a RoleProfile")
    return profile


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
    for index, pin in enumerate(config.compression.compressors):
        attempt(f"compression.compressors[{index}]", PluginFamily.COMPRESSOR, pin.name, pin.revision, pin.options)
    from lychd_core.projection.declared import media_table  # projection imports this module

    try:
        media_table(config, registry)
    except ConfigError as exc:
        problems.extend(f"media_types: {problem}" for problem in exc.problems)
    for index, ranking in enumerate(config.ranking.profiles):
        where = f"ranking.profiles[{index}]"
        attempt(where, PluginFamily.RANKING_PROFILE, ranking.name, ranking.revision, ranking.options)
    if problems:
        raise ConfigError(
            "configuration does not match the installed plugins:\n  " + "\n  ".join(problems), tuple(problems)
        )
