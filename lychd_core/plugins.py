"""The plugin manager and idempotent plugin loading.

Plugins come from two places only: the core's ``DEFAULT_PLUGINS`` modules and the
``lychd`` entry point group. Nothing scans packages, globs or import paths.
"""

from __future__ import annotations

import importlib
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

import pluggy

from lychd_core import hookspecs
from lychd_core.errors import (
    DuplicatePluginError,
    LychdError,
    PluginCallError,
    PluginLoadError,
    PluginTimeoutError,
    PluginValidationError,
)
from lychd_core.version import __version__

T = TypeVar("T")

ENTRY_POINT_GROUP = "lychd"
ALLOWLIST_ENV = "LYCHD_LOAD_PLUGINS"
CALL_LIMIT_ENV = "LYCHD_PLUGIN_CALL_SECONDS"
DEFAULT_CALL_SECONDS = 30.0
"""Time limit of one bounded plugin call (importing an entry point, a registration hook, a
role policy), unless the environment variable ``LYCHD_PLUGIN_CALL_SECONDS`` sets another."""

DEFAULT_PLUGINS: tuple[str, ...] = ()
"""Core-bundled hook modules. Empty: first-party plugins ship as their own
distributions through the entry point group, the same road third parties take."""


def normalize_distribution(name: str) -> str:
    """PEP 503 normalization, so ``lychd_verbatim`` and ``lychd-verbatim`` match."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True, slots=True)
class PluginSource:
    """Which distribution (and version) a loaded pluggy plugin came from."""

    distribution: str
    version: str


def _allowlist() -> frozenset[str] | None:
    raw = os.environ.get(ALLOWLIST_ENV)
    if raw is None:
        return None
    return frozenset(normalize_distribution(part) for part in raw.split(",") if part.strip())


class PluginHost:
    """One pluggy manager plus where each of its plugins came from."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self.sources: dict[str, PluginSource] = {}
        self._loaded = False

    def register(self, plugin: object, name: str, source: PluginSource) -> None:
        """Register one hook module or object; checks its hooks against the specs."""
        try:
            self.pm.register(plugin, name=name)
        except (pluggy.PluginValidationError, ValueError) as exc:
            raise PluginValidationError(f"plugin {name!r} from {source.distribution}: {exc}") from exc
        self.sources[name] = source
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            self.unregister(name)
            raise PluginValidationError(
                f"plugin {name!r} from {source.distribution} implements a hook that does not exist: {exc}. "
                "Hook names start with 'lychd_register_'; see docs/plugin_hooks.md"
            ) from exc

    def unregister(self, name: str) -> None:
        self.pm.unregister(name=name)
        self.sources.pop(name, None)

    def load(self, *, entry_points_enabled: bool = True) -> None:
        """Load default and entry-point plugins once; a failure leaves nothing registered."""
        if self._loaded:
            return
        added: list[str] = []
        try:
            for module_name in DEFAULT_PLUGINS:
                module = importlib.import_module(module_name)
                self.register(module, module_name, PluginSource("lychd-core", _core_version()))
                added.append(module_name)
            if entry_points_enabled:
                for entry_point in self._selected_entry_points():
                    name = entry_point.name
                    if self.pm.has_plugin(name):  # a DEFAULT_PLUGINS module of the same name
                        continue
                    self.register(_load_entry_point(entry_point), name, _source_of(entry_point))
                    added.append(name)
        except BaseException:
            for name in added:
                self.unregister(name)
            raise
        self._loaded = True

    @staticmethod
    def _selected_entry_points() -> list[EntryPoint]:
        """Allowed entry points by name; one name from two distributions is a duplicate."""
        allow = _allowlist()
        selected: dict[str, EntryPoint] = {}
        for entry_point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name):
            dist = normalize_distribution(entry_point.dist.name if entry_point.dist else "")
            if allow is not None and dist not in allow:
                continue
            earlier = selected.get(entry_point.name)
            if earlier is None:
                selected[entry_point.name] = entry_point
                continue
            earlier_dist = normalize_distribution(earlier.dist.name if earlier.dist else "")
            if earlier_dist != dist or earlier.value != entry_point.value:
                raise DuplicatePluginError(
                    f"entry point {entry_point.name!r} of group {ENTRY_POINT_GROUP!r} is declared by "
                    f"{_source_of(earlier).distribution} ({earlier.value}) and by "
                    f"{_source_of(entry_point).distribution} ({entry_point.value}); entry point names must be "
                    f"unique: uninstall one, or leave one out of {ALLOWLIST_ENV}"
                )
        return list(selected.values())


def _core_version() -> str:
    return __version__


def _source_of(entry_point: EntryPoint) -> PluginSource:
    dist = entry_point.dist
    if dist is None:
        return PluginSource("(unknown distribution)", "?")
    return PluginSource(dist.name, dist.version)


def _load_entry_point(entry_point: EntryPoint) -> object:
    """Import an entry point within :func:`call_limit` seconds; a failure or a hang names the distribution."""
    source = _source_of(entry_point)
    who = f"{source.distribution} {source.version}"
    ok, value = _bounded(who, f"importing plugin {entry_point.name!r} ({entry_point.value})", entry_point.load)
    if ok:
        return value
    raise PluginLoadError(  # SystemExit and KeyboardInterrupt from plugin code too
        f"plugin {entry_point.name!r} from distribution {who} "
        f"failed to import ({entry_point.value}): {type(value).__name__}: {value}. "
        f"Fix or uninstall {source.distribution}, or leave it out of {ALLOWLIST_ENV}"
    ) from value


def call_limit() -> float:
    """Seconds one bounded plugin call may take (``LYCHD_PLUGIN_CALL_SECONDS``, default 30)."""
    raw = os.environ.get(CALL_LIMIT_ENV)
    try:
        seconds = float(raw) if raw else DEFAULT_CALL_SECONDS
    except ValueError:
        return DEFAULT_CALL_SECONDS
    return seconds if seconds > 0 else DEFAULT_CALL_SECONDS


def _bounded(distribution: str, what: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[bool, Any]:
    """``(True, result)`` or ``(False, what it raised)``; past :func:`call_limit` a :class:`PluginTimeoutError`.

    The call runs in a daemon thread: a thread cannot be stopped, but the caller gets
    control back, and an abandoned thread cannot keep the process alive.
    """
    outcome: list[tuple[bool, Any]] = []

    def target() -> None:
        try:
            outcome.append((True, function(*args, **kwargs)))
        except BaseException as exc:  # the boundary: every plugin failure becomes typed
            outcome.append((False, exc))

    limit = call_limit()
    worker = threading.Thread(target=target, name=f"lychd-plugin {what}", daemon=True)
    worker.start()
    worker.join(limit)
    if not outcome:
        raise PluginTimeoutError(
            f"{what} from {distribution} did not finish within {limit:g} s; fix or uninstall {distribution} "
            f"(the limit is {CALL_LIMIT_ENV})"
        )
    return outcome[0]


def call_plugin(distribution: str, what: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call plugin code behind the typed boundary, within :func:`call_limit` seconds.

    Whatever the plugin raises in its thread, ``SystemExit`` and ``KeyboardInterrupt``
    included, becomes a :class:`PluginCallError` naming ``distribution`` (a user's Ctrl-C
    arrives in the main thread, waiting here, and propagates as ``KeyboardInterrupt``); a call past the limit
    is a :class:`PluginTimeoutError` (its thread is abandoned as a daemon, so it cannot
    keep the process alive). Typed lychd errors raised by the plugin pass unchanged.
    """
    ok, value = _bounded(distribution, what, function, *args, **kwargs)
    if ok:
        return value  # type: ignore[no-any-return]
    if isinstance(value, LychdError):
        raise value
    raise PluginCallError(
        f"{what} from {distribution} raised {type(value).__name__}: {value}; fix or uninstall {distribution}"
    ) from value


host = PluginHost()
pm = host.pm


def load_plugins(*, entry_points: bool = True) -> None:
    """Load the process-wide plugins (idempotent)."""
    host.load(entry_points_enabled=entry_points)
