"""Plugin code behind one typed boundary: duplicates, exits, interrupts and time limits."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from lychd_toy.plugins import ToyRoles, UpperProfile

from lychd_core import plugins as plugins_module
from lychd_core.config import default_config
from lychd_core.errors import (
    DuplicatePluginError,
    PluginCallError,
    PluginLoadError,
    PluginTimeoutError,
    RolePolicyError,
)
from lychd_core.families import PluginFamily
from lychd_core.plugins import PluginHost, PluginSource, call_plugin
from lychd_core.registry import build_registry, registry_from
from tests.test_plugin_loading import FakeEntryPoint, module_with, projection_module, use_entry_points


class RaisingEntryPoint(FakeEntryPoint):
    def load(self) -> Any:
        raise self._target


def test_two_entry_points_with_one_name_name_both_distributions(monkeypatch: pytest.MonkeyPatch) -> None:
    use_entry_points(
        monkeypatch,
        FakeEntryPoint("roles", "lychd-roles", projection_module(UpperProfile())),
        FakeEntryPoint("roles", "acme-roles", module_with()),
    )
    monkeypatch.delenv("LYCHD_LOAD_PLUGINS", raising=False)
    host = PluginHost()
    with pytest.raises(
        DuplicatePluginError, match=r"'roles'.*acme-roles.*lychd-roles|'roles'.*lychd-roles.*acme-roles"
    ):
        host.load()
    assert not host.pm.has_plugin("roles"), "neither replaces the other"


def test_the_same_distribution_seen_twice_is_not_a_duplicate(monkeypatch: pytest.MonkeyPatch) -> None:
    module = projection_module(UpperProfile())
    use_entry_points(monkeypatch, FakeEntryPoint("up", "acme-up", module), FakeEntryPoint("up", "acme_up", module))
    monkeypatch.delenv("LYCHD_LOAD_PLUGINS", raising=False)
    host = PluginHost()
    host.load()
    assert build_registry(host).resolve(PluginFamily.PROJECTION_PROFILE, "toy.upper", 1).distribution == "acme-up"


def test_same_family_name_and_revision_from_two_distributions() -> None:
    host = PluginHost()
    host.register(projection_module(UpperProfile()), "a", PluginSource("acme-a", "1"))
    host.register(projection_module(UpperProfile()), "b", PluginSource("acme-b", "1"))
    with pytest.raises(DuplicatePluginError, match=r"toy\.upper.*acme-a.*acme-b"):
        build_registry(host)


@pytest.mark.parametrize("raised", [SystemExit(0), KeyboardInterrupt(), GeneratorExit(), RuntimeError("x")])
def test_an_entry_point_that_raises_anything_while_loading(
    raised: BaseException, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_entry_points(monkeypatch, RaisingEntryPoint("bad", "acme-bad", raised))
    monkeypatch.delenv("LYCHD_LOAD_PLUGINS", raising=False)
    with pytest.raises(PluginLoadError, match=rf"acme-bad.*{type(raised).__name__}"):
        PluginHost().load()


@pytest.mark.parametrize("raised", [SystemExit(0), KeyboardInterrupt(), ValueError("bad value")])
def test_a_registration_hook_that_raises_anything(raised: BaseException) -> None:
    def lychd_register_role_policies(register: Any) -> None:
        raise raised

    host = PluginHost()
    host.register(
        module_with(lychd_register_role_policies=lychd_register_role_policies), "x", PluginSource("acme-x", "1")
    )
    with pytest.raises(PluginCallError, match=rf"acme-x.*{type(raised).__name__}"):
        build_registry(host)


def test_call_plugin_passes_values_and_typed_errors() -> None:
    assert call_plugin("acme", "adding", lambda a, b: a + b, 2, 3) == 5

    def refuse() -> None:
        raise RolePolicyError("asks too much")

    with pytest.raises(RolePolicyError, match="asks too much"):
        call_plugin("acme", "refusing", refuse)


def test_call_plugin_bounds_the_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The call returns at its limit while the plugin still runs: no wall-clock assertion,
    the plugin is held until after the refusal, so a loaded machine cannot fail this."""
    monkeypatch.setenv(plugins_module.CALL_LIMIT_ENV, "0.2")
    release, finished = threading.Event(), threading.Event()

    def stuck() -> None:
        release.wait(600)
        finished.set()

    try:
        with pytest.raises(PluginTimeoutError, match=r"acme-slow.*0\.2 s"):
            call_plugin("acme-slow", "sleeping", stuck)
        assert not finished.is_set(), "the refusal came before the plugin finished"
    finally:
        release.set()


@pytest.mark.parametrize("raw", ["", "x", "-1", "0"])
def test_a_bad_limit_falls_back_to_the_default(raw: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(plugins_module.CALL_LIMIT_ENV, raw)
    assert plugins_module.call_limit() == plugins_module.DEFAULT_CALL_SECONDS


class ExitingRoles(ToyRoles):
    def profile(self, role: str, options: Any) -> Any:
        raise SystemExit(0)


def test_a_role_policy_that_exits_is_typed_and_names_its_distribution() -> None:
    registry = registry_from([(PluginFamily.ROLE_POLICY, ExitingRoles())], distribution="acme-exit")
    config = default_config().model_copy(
        update={
            "role_policy": default_config().role_policy.model_copy(
                update={"name": ExitingRoles.name, "revision": ExitingRoles.revision}
            )
        }
    )
    with pytest.raises(PluginCallError, match=r"acme-exit.*SystemExit"):
        config.role_profile("writer", registry)
