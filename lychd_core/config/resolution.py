"""Configured pins resolved against the registry: options validated, role policies called
behind the plugin boundary, every problem of a configuration collected at once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from lychd_core.config.problems import validation_problems
from lychd_core.errors import ConfigError, LychdError, MediaTypeError, PluginCallError
from lychd_core.families import PluginFamily
from lychd_core.plugins import call_plugin
from lychd_core.registry import RegisteredPlugin, Registry
from lychd_core.roles import RoleProfile

if TYPE_CHECKING:
    from lychd_core.config.models import LychdConfig


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
        problems = validation_problems(exc, model=found.obj.options_model)
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
    _check_counters(config, attempt)
    if problems:
        raise ConfigError(
            "configuration does not match the installed plugins:\n  " + "\n  ".join(problems), tuple(problems)
        )


resolve_pin = _resolve
"""The plugin pinned at ``name@revision`` with ``options`` validated by its own model."""


def _check_counters(
    config: LychdConfig, attempt: Callable[[str, PluginFamily, str, int, dict[str, Any]], None]
) -> None:
    from lychd_core.tokens.settings import parse_pin

    if config.tokens.counter is not None:
        name, revision = parse_pin(config.tokens.counter)
        attempt("tokens.counter", PluginFamily.TOKEN_COUNTER, name, revision, config.tokens.options)
    for model, choice in config.tokens.models.items():
        name, revision = parse_pin(choice.counter)
        attempt(f'tokens.models."{model}"', PluginFamily.TOKEN_COUNTER, name, revision, choice.options)
