"""One ``test_hook_<name>`` per hook spec (as datasette does): each registers a real plugin
object through the hook alone and finds it in the registry under the hook's family.

``tests/test_docs_and_layout.py`` requires a function of that name here for every hook,
so a new hook spec without its own test fails the suite.
"""

from __future__ import annotations

import types
from typing import Any

from lychd_core.families import PluginFamily
from lychd_core.hookspecs import hookimpl
from lychd_core.plugins import PluginHost, PluginSource
from lychd_core.registry import HOOK_FAMILIES, build_registry, get_registry


def registered_through(hook: str, family: PluginFamily) -> None:
    """An installed plugin object of ``family``, registered again through ``hook`` on a fresh
    host, comes back from the registry as itself, under its exact name and revision only."""
    installed = [plugin for plugin in get_registry().all() if plugin.family is family]
    assert installed, f"no installed plugin of family {family.value} to register through {hook}"
    obj = installed[0].obj

    def impl(register: Any) -> None:
        register(obj)

    impl.__name__ = hook
    host = PluginHost()
    host.register(types.SimpleNamespace(**{hook: hookimpl(impl)}), "under-test", PluginSource("acme-hooks", "1"))
    registry = build_registry(host)
    found = registry.resolve(family, installed[0].name, installed[0].revision)
    assert found.obj is obj and found.distribution == "acme-hooks"
    assert [plugin.family for plugin in registry.all()] == [family], "the hook registers one family only"
    assert HOOK_FAMILIES[hook] is family


def test_hook_register_projection_profiles() -> None:
    registered_through("lychd_register_projection_profiles", PluginFamily.PROJECTION_PROFILE)


def test_hook_register_compressors() -> None:
    registered_through("lychd_register_compressors", PluginFamily.COMPRESSOR)


def test_hook_register_role_policies() -> None:
    registered_through("lychd_register_role_policies", PluginFamily.ROLE_POLICY)


def test_hook_register_privacy_profiles() -> None:
    registered_through("lychd_register_privacy_profiles", PluginFamily.PRIVACY_PROFILE)


def test_hook_register_ranking_profiles() -> None:
    registered_through("lychd_register_ranking_profiles", PluginFamily.RANKING_PROFILE)


def test_hook_register_token_counters() -> None:
    registered_through("lychd_register_token_counters", PluginFamily.TOKEN_COUNTER)
