"""The typed deployment configuration: every model forbids unknown keys."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from lychd_core.config.pins import resolve_pin
from lychd_core.config.ranking import RankingConfig
from lychd_core.config.stores import StoresConfig
from lychd_core.config.tokens import HistoryConfig, TokensConfig
from lychd_core.errors import MediaTypeError, PluginCallError
from lychd_core.families import PluginFamily
from lychd_core.mediatypes import EXTENSIONS, FILE_NAMES, file_key_kind, normalize_media_type
from lychd_core.plugins import call_plugin
from lychd_core.privacy.settings import EgressConfig, LabelRule
from lychd_core.registry import Registry, get_registry
from lychd_core.roles import RoleProfile

SCHEMA_VERSION = 1
MAX_CONFIG_BYTES = 1 << 20
DEFAULT_RANKING = (
    {"name": "lexical", "revision": 2, "weight": 3, "options": {"path_weight": 5}},
    {"name": "symbol-graph", "revision": 4, "weight": 2},
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
    tokens: TokensConfig = Field(
        default_factory=TokensConfig,
        description="How tokens are counted for the token budget.",
        examples=[{"counter": "o200k_base@1"}],
    )
    history: HistoryConfig = Field(
        default_factory=HistoryConfig,
        description="How settled history is trimmed when it no longer fits.",
        examples=[{"trim": "chunked", "low_water": 60}],
    )

    _media_types_checked = field_validator("media_types")(_check_media_types)

    def declared_media_types(self) -> dict[str, str]:
        """``[media_types]`` as key -> media type."""
        return {k: v if isinstance(v, str) else v.media_type for k, v in self.media_types.items()}

    def role_profile(self, role: str, registry: Registry | None = None) -> RoleProfile:
        """One call: the profile of ``role`` from the pinned ``role_policy``, its options
        validated (``ConfigError`` names what the policy refused), the policy called
        behind the plugin boundary; ``registry`` defaults to the process-wide one."""
        return _role_profile(self.role_policy, registry or get_registry(), role)


def _role_profile(pin: PluginPin, registry: Registry, role: str) -> RoleProfile:
    """The configured role policy's profile of ``role``: options validated, the policy called
    behind the plugin boundary (typed errors, time limit), its answer checked."""
    resolved = resolve_pin(registry, PluginFamily.ROLE_POLICY, pin.name, pin.revision, pin.options, "role_policy")
    plugin = resolved.plugin
    what = f"role policy {plugin.pin} profile({role!r})"
    profile = call_plugin(plugin.distribution, what, plugin.obj.profile, role, resolved.options)
    if not isinstance(profile, RoleProfile):
        raise PluginCallError(f"{what} from {plugin.distribution} returned {type(profile).__name__}, not a RoleProfile")
    return profile
