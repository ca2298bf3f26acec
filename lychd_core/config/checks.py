"""A whole configuration checked against the installed plugins: every pin resolved, every
problem collected at once; and the projection rule of one media type."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lychd_core.config.media_table import media_table
from lychd_core.config.pins import ResolvedPin, resolve_pin
from lychd_core.config.tokens import parse_pin
from lychd_core.errors import ConfigError, LychdError, MediaTypeError
from lychd_core.families import PluginFamily
from lychd_core.registry import Registry

if TYPE_CHECKING:
    from lychd_core.config.models import LychdConfig


def resolve_rule(config: LychdConfig, registry: Registry, media_type: str) -> ResolvedPin:
    """The profile and options for one normalized media type; no rule is a typed refusal."""
    rule = config.projection.rules.get(media_type)
    if rule is None:
        known = ", ".join(sorted(config.projection.rules)) or "none"
        raise MediaTypeError(f"no projection rule for media type {media_type!r} (rules exist for: {known})")
    return resolve_pin(
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
            resolved = resolve_pin(registry, family, pin_name, revision, options, where)
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


def _check_counters(
    config: LychdConfig, attempt: Callable[[str, PluginFamily, str, int, dict[str, Any]], None]
) -> None:
    if config.tokens.counter is not None:
        name, revision = parse_pin(config.tokens.counter)
        attempt("tokens.counter", PluginFamily.TOKEN_COUNTER, name, revision, config.tokens.options)
    for model, choice in config.tokens.models.items():
        name, revision = parse_pin(choice.counter)
        attempt(f'tokens.models."{model}"', PluginFamily.TOKEN_COUNTER, name, revision, choice.options)
