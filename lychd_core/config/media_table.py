"""Declared media types: the configuration's ``[media_types]`` and the profiles' own file kinds.

Two sources extend the core's file-kind tables, each explicitly and checked:

- the configuration's ``[media_types]`` table (an entry that departs from a core
  mapping says ``override = true``; :mod:`lychd_core.config` checks that);
- a projection profile's optional ``file_media_types`` attribute, naming the exact file
  names and extensions of its own media types.

Two installed profiles that claim one key for different media types, or a profile that
claims a key the core maps differently, are a :class:`MediaTypeConflictError` naming
both sides, unless the configuration names that key itself (it then decides).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from lychd_core.digests import json_digest
from lychd_core.errors import MediaTypeConflictError
from lychd_core.families import PluginFamily
from lychd_core.mediatypes import EXTENSIONS, FILE_NAMES, file_key_kind

if TYPE_CHECKING:
    from lychd_core.config.models import LychdConfig
    from lychd_core.registry import RegisteredPlugin, Registry

CONFIGURATION = "configuration"

DeclaredSource = Literal["config-file-name", "config-extension", "profile-file-name", "profile-extension"]


@dataclass(frozen=True, slots=True)
class Declared:
    """One declared key: its media type and who declared it."""

    media_type: str
    declared_by: str


def _frozen(entries: Mapping[str, Declared]) -> Mapping[str, Declared]:
    return MappingProxyType(dict(sorted(entries.items())))


@dataclass(frozen=True)
class MediaTable:
    """The declared keys, configuration first, then profiles; the core's tables come after both."""

    configured: Mapping[str, Declared] = field(default_factory=lambda: MappingProxyType({}))
    profiles: Mapping[str, Declared] = field(default_factory=lambda: MappingProxyType({}))

    @cached_property
    def identity(self) -> str:
        """Digest of every declared key, part of the media-decision cache key."""
        return json_digest(
            {
                origin: {key: [d.media_type, d.declared_by] for key, d in table.items()}
                for origin, table in (("configuration", self.configured), ("profiles", self.profiles))
            }
        )

    def lookup(self, path: str) -> tuple[Declared, DeclaredSource] | None:
        """The declaration deciding ``path`` and its source name, by the documented precedence."""
        name = path.rpartition("/")[2]
        if self.configured:
            found = _find(self.configured, name)
            if found is not None:
                return found[0], "config-file-name" if found[1] else "config-extension"
        if self.profiles:
            found = _find(self.profiles, name)
            if found is not None:
                return found[0], "profile-file-name" if found[1] else "profile-extension"
        return None


def _find(table: Mapping[str, Declared], name: str) -> tuple[Declared, bool] | None:
    """(declaration, matched the exact file name) for ``name``; the file name beats extensions."""
    if name in table:
        return table[name], True
    for suffix in candidate_extensions(name):
        if suffix in table:
            return table[suffix], False
    return None


EMPTY_TABLE = MediaTable()


def candidate_extensions(name: str) -> list[str]:
    """The file's compound extensions, longest first (``a.d.ts`` → ``.d.ts``, ``.ts``), lower-cased."""
    suffixes = file_suffixes(name.lower())
    return ["".join(suffixes[index:]) for index in range(len(suffixes))]


def file_suffix(name: str) -> str:
    """``PurePosixPath(name).suffix`` without building a path (this runs once per file)."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def file_suffixes(name: str) -> list[str]:
    """``PurePosixPath(name).suffixes`` without building a path."""
    if name.endswith("."):
        return []
    return ["." + suffix for suffix in name.lstrip(".").split(".")[1:]]


def _core(key: str) -> str | None:
    return (EXTENSIONS if key.startswith(".") else FILE_NAMES).get(key)


def describe(plugin: RegisteredPlugin) -> str:
    return f"{plugin.pin} from {plugin.distribution} {plugin.version}"


def declared_file_media_types(obj: object) -> Mapping[str, str]:
    """A profile's ``file_media_types`` attribute, or an empty mapping when it declares none."""
    declared = getattr(obj, "file_media_types", None)
    return declared if isinstance(declared, Mapping) else {}


def media_table(config: LychdConfig, registry: Registry) -> MediaTable:
    """Merge the configuration's and the installed profiles' declarations; refuse unsettled conflicts."""
    configured = {key: Declared(media_type, CONFIGURATION) for key, media_type in config.declared_media_types().items()}
    claims: dict[str, tuple[str, RegisteredPlugin]] = {}
    problems: list[str] = []
    for plugin in registry.all():
        if plugin.family is not PluginFamily.PROJECTION_PROFILE:
            continue
        for key, media_type in sorted(declared_file_media_types(plugin.obj).items()):
            file_key_kind(key)  # checked at registration; kept here for objects added by hand
            if key in configured:
                continue  # the configuration settles it
            previous = claims.get(key)
            if previous is not None and previous[0] != media_type:
                problems.append(
                    f"{key!r} is claimed as {previous[0]} by {describe(previous[1])} and as {media_type} by "
                    f"{describe(plugin)}"
                )
                continue
            core = _core(key)
            if core == media_type:
                continue  # the core already says so; it stays the deciding source
            if core is not None:
                problems.append(f"{key!r} is claimed as {media_type} by {describe(plugin)}; the core maps it to {core}")
                continue
            claims.setdefault(key, (media_type, plugin))
    if problems:
        raise MediaTypeConflictError(
            "installed projection profiles declare conflicting media types:\n  "
            + "\n  ".join(problems)
            + '\nsettle each in the configuration, e.g. [media_types] ".ext" = "text/x-chosen" '
            "(with override = true where it departs from the core's mapping)",
            tuple(problems),
        )
    profiles = {key: Declared(media_type, describe(plugin)) for key, (media_type, plugin) in claims.items()}
    return MediaTable(_frozen(configured), _frozen(profiles))
