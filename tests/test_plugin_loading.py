"""Loading plugins: entry points, allowlist, misspelled hooks, import failures, duplicates."""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

import pytest
from lychd_toy.plugins import EmailFinder, HeadCompressor, ToyRoles, UpperProfile

from lychd_core import plugins as plugins_module
from lychd_core.errors import DuplicatePluginError, PluginError, PluginLoadError, PluginValidationError
from lychd_core.families import PluginFamily
from lychd_core.hookspecs import hookimpl
from lychd_core.plugins import PluginHost, PluginSource
from lychd_core.registry import build_registry


@dataclass
class FakeDist:
    name: str
    version: str = "1.0"


class FakeEntryPoint:
    def __init__(self, name: str, dist: str, target: Any) -> None:
        self.name = name
        self.value = f"{dist.replace('-', '_')}.hooks"
        self.dist = FakeDist(dist)
        self._target = target

    def load(self) -> Any:
        if isinstance(self._target, Exception):
            raise self._target
        return self._target


def module_with(**hooks: Any) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{name: hookimpl(fn) for name, fn in hooks.items()})


def projection_module(profile: object) -> types.SimpleNamespace:
    def lychd_register_projection_profiles(register: Any) -> None:
        register(profile)

    return module_with(lychd_register_projection_profiles=lychd_register_projection_profiles)


def use_entry_points(monkeypatch: pytest.MonkeyPatch, *eps: FakeEntryPoint) -> None:
    monkeypatch.setattr(plugins_module, "entry_points", lambda group: list(eps))


def test_entry_points_load_with_their_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    use_entry_points(monkeypatch, FakeEntryPoint("upper", "acme-upper", projection_module(UpperProfile())))
    monkeypatch.delenv("LYCHD_LOAD_PLUGINS", raising=False)
    host = PluginHost()
    host.load()
    entry = build_registry(host).resolve(PluginFamily.PROJECTION_PROFILE, "toy.upper", 1)
    assert (entry.distribution, entry.version) == ("acme-upper", "1.0")


def test_allowlist_limits_distributions(monkeypatch: pytest.MonkeyPatch) -> None:
    use_entry_points(
        monkeypatch,
        FakeEntryPoint("a", "acme-a", projection_module(UpperProfile())),
        FakeEntryPoint("b", "acme-b", RuntimeError("must not be imported")),
    )
    monkeypatch.setenv("LYCHD_LOAD_PLUGINS", "acme_a")
    host = PluginHost()
    host.load()
    assert host.pm.has_plugin("a") and not host.pm.has_plugin("b")


def test_empty_allowlist_loads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    use_entry_points(monkeypatch, FakeEntryPoint("b", "acme-b", RuntimeError("must not be imported")))
    monkeypatch.setenv("LYCHD_LOAD_PLUGINS", "")
    host = PluginHost()
    host.load()
    assert build_registry(host).all() == []


def test_import_failure_names_the_distribution(monkeypatch: pytest.MonkeyPatch) -> None:
    use_entry_points(
        monkeypatch,
        FakeEntryPoint("good", "acme-good", projection_module(UpperProfile())),
        FakeEntryPoint("broken", "acme-broken", ImportError("No module named 'numpyy'")),
    )
    monkeypatch.delenv("LYCHD_LOAD_PLUGINS", raising=False)
    host = PluginHost()
    with pytest.raises(PluginLoadError, match="acme-broken") as info:
        host.load()
    assert "numpyy" in str(info.value)
    assert not host.pm.has_plugin("good"), "a failed load leaves nothing registered"


def test_misspelled_hook_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def lychd_register_projection_profile(register: Any) -> None:  # missing the final 's'
        register(UpperProfile())

    bad = module_with(lychd_register_projection_profile=lychd_register_projection_profile)
    use_entry_points(monkeypatch, FakeEntryPoint("typo", "acme-typo", bad))
    monkeypatch.delenv("LYCHD_LOAD_PLUGINS", raising=False)
    host = PluginHost()
    with pytest.raises(PluginValidationError, match="lychd_register_projection_profile"):
        host.load()
    assert not host.pm.has_plugin("typo")


def test_duplicate_names_are_an_error() -> None:
    host = PluginHost()
    host.register(projection_module(UpperProfile()), "one", PluginSource("acme-one", "1"))
    host.register(projection_module(UpperProfile()), "two", PluginSource("acme-two", "2"))
    with pytest.raises(DuplicatePluginError, match=r"toy\.upper.*acme-one.*acme-two"):
        build_registry(host)


def test_hook_that_raises_names_the_plugin() -> None:
    def lychd_register_compressors(register: Any) -> None:
        raise RuntimeError("boom")

    host = PluginHost()
    host.register(module_with(lychd_register_compressors=lychd_register_compressors), "x", PluginSource("acme-x", "1"))
    with pytest.raises(PluginError, match=r"acme-x.*boom"):
        build_registry(host)


def test_every_hook_registers_its_family() -> None:
    """One test per hook spec (a meta-test checks every spec is named in a test)."""
    calls = {
        "lychd_register_projection_profiles": (UpperProfile(), PluginFamily.PROJECTION_PROFILE),
        "lychd_register_compressors": (HeadCompressor(), PluginFamily.COMPRESSOR),
        "lychd_register_role_policies": (ToyRoles(), PluginFamily.ROLE_POLICY),
        "lychd_register_privacy_profiles": (EmailFinder(), PluginFamily.PRIVACY_PROFILE),
    }
    host = PluginHost()
    for hook_name, (obj, _family) in calls.items():

        def impl(register: Any, obj: object = obj) -> None:
            register(obj)

        impl.__name__ = hook_name
        host.register(module_with(**{hook_name: impl}), hook_name, PluginSource("acme", "1"))
    registry = build_registry(host)
    for obj, family in calls.values():
        assert registry.resolve(family, obj.name, 1).obj is obj  # type: ignore[attr-defined]
