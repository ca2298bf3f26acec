"""Typed registries built from the loaded plugins' registration hooks."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic import BaseModel, ValidationError

from lychd_core.errors import (
    DuplicatePluginError,
    MediaTypeError,
    PluginValidationError,
    RevisionMismatchError,
    UnknownPluginError,
)
from lychd_core.families import (
    FAMILY_METHOD,
    Compressor,
    PluginFamily,
    RankingProfile,
    RolePolicy,
    TokenCounter,
    TokenCountKind,
)
from lychd_core.mediatypes import check_file_media_types, normalize_media_type
from lychd_core.plugins import PluginHost, PluginSource, call_plugin, host, load_plugins

NAME_RE = re.compile(r"^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$")

HOOK_FAMILIES: dict[str, PluginFamily] = {
    "lychd_register_projection_profiles": PluginFamily.PROJECTION_PROFILE,
    "lychd_register_compressors": PluginFamily.COMPRESSOR,
    "lychd_register_role_policies": PluginFamily.ROLE_POLICY,
    "lychd_register_privacy_profiles": PluginFamily.PRIVACY_PROFILE,
    "lychd_register_ranking_profiles": PluginFamily.RANKING_PROFILE,
    "lychd_register_token_counters": PluginFamily.TOKEN_COUNTER,
}


@dataclass(frozen=True, slots=True)
class RegisteredPlugin:
    """One registered plugin object with where it came from."""

    family: PluginFamily
    name: str
    revision: int
    obj: Any
    distribution: str
    version: str
    media_types: tuple[str, ...] = ()

    @property
    def pin(self) -> str:
        return f"{self.name}@{self.revision}"

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "family": self.family.value,
            "revision": self.revision,
            "media_types": list(self.media_types),
            "distribution": self.distribution,
            "version": self.version,
        }


def check_plugin_object(family: PluginFamily, obj: object, where: str) -> tuple[str, int, tuple[str, ...]]:
    """Validate the common and family-specific shape; return name, revision, media types."""
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise PluginValidationError(
            f"{where}: {family.value} name {name!r} is invalid; use lower-case words joined by '.', '-' or '_'"
        )
    revision = getattr(obj, "revision", None)
    if not isinstance(revision, int) or isinstance(revision, bool) or revision < 1:
        raise PluginValidationError(f"{where}: {name!r} revision must be an integer >= 1, got {revision!r}")
    options_model = getattr(obj, "options_model", None)
    if not (isinstance(options_model, type) and issubclass(options_model, BaseModel)):
        raise PluginValidationError(f"{where}: {name!r} needs options_model, a pydantic model class")
    if options_model.model_config.get("extra") != "forbid":
        raise PluginValidationError(f"{where}: {name!r} options_model must set extra='forbid'")
    try:
        options_model()
    except ValidationError as exc:
        raise PluginValidationError(f"{where}: {name!r} options_model needs a default for every field: {exc}") from exc
    method = FAMILY_METHOD[family]
    if not callable(getattr(obj, method, None)):
        raise PluginValidationError(f"{where}: {family.value} {name!r} has no callable {method}()")
    media_types: tuple[str, ...] = ()
    if family is PluginFamily.PROJECTION_PROFILE:
        declared = getattr(obj, "media_types", None)
        if not isinstance(declared, frozenset) or not declared:
            raise PluginValidationError(f"{where}: {name!r} media_types must be a non-empty frozenset")
        for media_type in declared:
            try:
                normal = normalize_media_type(media_type)
            except MediaTypeError as exc:
                raise PluginValidationError(f"{where}: {name!r}: {exc}") from exc
            if normal != media_type:
                raise PluginValidationError(f"{where}: {name!r} declares {media_type!r}; use normalized {normal!r}")
        if not isinstance(getattr(obj, "parser_version", None), str) or not obj.parser_version:  # type: ignore[attr-defined]
            raise PluginValidationError(f"{where}: {name!r} parser_version must be a non-empty string")
        media_types = tuple(sorted(declared))
        if hasattr(obj, "file_media_types"):  # optional: the file names and extensions of its media types
            try:
                check_file_media_types(obj.file_media_types, declared)
            except MediaTypeError as exc:
                raise PluginValidationError(f"{where}: {name!r}: {exc}") from exc
    if family is PluginFamily.ROLE_POLICY:
        roles = getattr(obj, "roles", None)
        if not isinstance(roles, tuple) or not all(isinstance(role, str) and role for role in roles):
            raise PluginValidationError(f"{where}: {name!r} roles must be a tuple of role names")
    if family is PluginFamily.TOKEN_COUNTER:
        _check_token_counter(obj, name, where)
    return name, revision, media_types


def _check_token_counter(obj: object, name: str, where: str) -> None:
    kind = getattr(obj, "kind", None)
    if not isinstance(kind, TokenCountKind):
        known = ", ".join(repr(k.value) for k in TokenCountKind)
        raise PluginValidationError(f"{where}: {name!r} kind must be a TokenCountKind ({known}), got {kind!r}")
    tokenizer = getattr(obj, "tokenizer", None)
    if not isinstance(tokenizer, str) or not tokenizer:
        raise PluginValidationError(f"{where}: {name!r} tokenizer must be a non-empty string, got {tokenizer!r}")
    if getattr(obj, "calibrated", False) and "ratio_ppm" not in obj.options_model.model_fields:  # type: ignore[attr-defined]
        raise PluginValidationError(f"{where}: {name!r} is calibrated, so its options_model needs a ratio_ppm field")


@dataclass
class Registry:
    """All registered plugins, by family and exact name."""

    entries: dict[PluginFamily, dict[str, RegisteredPlugin]] = field(
        default_factory=lambda: {family: {} for family in PluginFamily}
    )

    def add(self, family: PluginFamily, obj: object, source: PluginSource) -> None:
        where = f"{source.distribution} {source.version}"
        name, revision, media_types = check_plugin_object(family, obj, where)
        existing = self.entries[family].get(name)
        if existing is not None:
            raise DuplicatePluginError(
                f"{family.value} {name!r} is registered twice: by {existing.distribution} and by "
                f"{source.distribution}; names must be unique, uninstall one of them"
            )
        self.entries[family][name] = RegisteredPlugin(
            family, name, revision, obj, source.distribution, source.version, media_types
        )

    def all(self) -> list[RegisteredPlugin]:
        return [self.entries[f][n] for f in PluginFamily for n in sorted(self.entries[f])]

    def names(self, family: PluginFamily) -> list[str]:
        return sorted(self.entries[family])

    def lookup(self, family: PluginFamily, name: str) -> RegisteredPlugin:
        """The plugin named exactly ``name``; unknown names list the known ones."""
        found = self.entries[family].get(name)
        if found is None:
            known = self.names(family)
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise UnknownPluginError(
                f"{family.value} {name!r} is not registered (known: {', '.join(known) or 'none'}).{hint}"
            )
        return found

    def resolve(self, family: PluginFamily, name: str, revision: int) -> RegisteredPlugin:
        """The plugin pinned at exactly ``name@revision``."""
        found = self.lookup(family, name)
        if found.revision != revision:
            raise RevisionMismatchError(
                f"{family.value} {name!r} revision {revision} is pinned, but revision {found.revision} is "
                f"installed (from {found.distribution} {found.version}); pin {found.revision} or install "
                f"a {found.distribution} that provides revision {revision}"
            )
        return found

    def compressor(self, name: str, revision: int) -> Compressor:
        return cast(Compressor, self.resolve(PluginFamily.COMPRESSOR, name, revision).obj)

    def role_policy(self, name: str, revision: int) -> RolePolicy:
        return cast(RolePolicy, self.resolve(PluginFamily.ROLE_POLICY, name, revision).obj)

    def ranking_profile(self, name: str, revision: int) -> RankingProfile:
        return cast(RankingProfile, self.resolve(PluginFamily.RANKING_PROFILE, name, revision).obj)

    def token_counter(self, name: str, revision: int) -> TokenCounter:
        return cast(TokenCounter, self.resolve(PluginFamily.TOKEN_COUNTER, name, revision).obj)


def build_registry(plugin_host: PluginHost) -> Registry:
    """Call every registration hook of every plugin and validate what it registers."""
    registry = Registry()
    for hook_name, family in HOOK_FAMILIES.items():
        caller = getattr(plugin_host.pm.hook, hook_name)
        for impl in caller.get_hookimpls():
            source = plugin_host.sources.get(impl.plugin_name, PluginSource(impl.plugin_name, "?"))
            register = _registrar(registry, family, source)
            what = f"{hook_name} of plugin {impl.plugin_name!r}"
            call_plugin(source.distribution, what, impl.function, **{arg: register for arg in impl.argnames})
    return registry


def _registrar(registry: Registry, family: PluginFamily, source: PluginSource) -> Callable[[object], None]:
    def register(obj: object) -> None:
        registry.add(family, obj, source)

    return register


_cached: Registry | None = None


def get_registry(*, entry_points: bool = True) -> Registry:
    """The process-wide registry over the loaded plugins (built once)."""
    global _cached
    if _cached is None:
        load_plugins(entry_points=entry_points)
        _cached = build_registry(host)
    return _cached


def registry_from(objects: Iterable[tuple[PluginFamily, object]], distribution: str = "(local)") -> Registry:
    """A registry over plain objects, for tests and embedding without entry points."""
    registry = Registry()
    for family, obj in objects:
        registry.add(family, obj, PluginSource(distribution, "0"))
    return registry
