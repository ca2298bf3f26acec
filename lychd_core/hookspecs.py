"""Hook markers and specifications. Nothing else lives here.

Every hook is prefixed ``lychd_`` and receives a ``register`` callback; a plugin calls
``register(obj)`` once per object it provides. Hooks may gain arguments, never lose them.
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

PROJECT_NAME = "lychd"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

Register = Callable[[object], None]


@hookspec
def lychd_register_projection_profiles(register: Register) -> None:
    """Register projection profiles.

    :param register: call ``register(profile)`` for each object implementing
        :class:`lychd_core.families.ProjectionProfile` (``name``, ``revision``,
        ``options_model``, ``media_types``, ``parser_version``, ``project``).

    Called once per registry build, for every loaded plugin.
    """


@hookspec
def lychd_register_compressors(register: Register) -> None:
    """Register compressors.

    :param register: call ``register(compressor)`` for each object implementing
        :class:`lychd_core.families.Compressor` (``name``, ``revision``,
        ``options_model``, ``compress``).

    Called once per registry build, for every loaded plugin.
    """


@hookspec
def lychd_register_role_policies(register: Register) -> None:
    """Register role policies.

    :param register: call ``register(policy)`` for each object implementing
        :class:`lychd_core.families.RolePolicy` (``name``, ``revision``,
        ``options_model``, ``roles``, ``profile``).

    Called once per registry build, for every loaded plugin.
    """


@hookspec
def lychd_register_privacy_profiles(register: Register) -> None:
    """Register privacy profiles.

    :param register: call ``register(profile)`` for each object implementing
        :class:`lychd_core.families.PrivacyProfile` (``name``, ``revision``,
        ``options_model``, ``propose``).

    Called once per registry build, for every loaded plugin.
    """


@hookspec
def lychd_register_ranking_profiles(register: Register) -> None:
    """Register ranking profiles (query-aware relevance of optional material).

    :param register: call ``register(profile)`` for each object implementing
        :class:`lychd_core.families.RankingProfile` (``name``, ``revision``,
        ``options_model``, ``rank``).

    Called once per registry build, for every loaded plugin.
    """


@hookspec
def lychd_register_token_counters(register: Register) -> None:
    """Register token counters (how many tokens a text costs a model).

    :param register: call ``register(counter)`` for each object implementing
        :class:`lychd_core.families.TokenCounter` (``name``, ``revision``,
        ``options_model``, ``kind``, ``tokenizer``, ``count``).

    Called once per registry build, for every loaded plugin.
    """
