"""Structure alternates of verbatim material: what a structure profile makes of the same bytes.

Verbatim material that does not fit may fall back to its structure outline where a
structure profile (a registered projection profile named ``structure.*``) accepts its
media type. The outline is projected by the same projector (same reading, digest check,
bounds and cache), only with the structure profile instead of the rule's; the ranking
stage offers it as a coarser resolution of the verbatim node, declared as an omission,
never as cut text.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from lychd_core.config import LychdConfig
from lychd_core.errors import LychdError, MediaTypeError
from lychd_core.families import PluginFamily
from lychd_core.projection.materials import MaterialRef
from lychd_core.projection.projector import Contribution, Projector
from lychd_core.registry import RegisteredPlugin, Registry

STRUCTURE_PREFIX = "structure."
VERBATIM = "verbatim"


def structure_profile_for(
    config: LychdConfig, registry: Registry, media_type: str
) -> tuple[RegisteredPlugin, BaseModel] | None:
    """The structure profile that covers ``media_type``: one a projection rule already pins
    (its revision and options), else the registered one with default options; ``None`` if none."""
    for rule in config.projection.rules.values():
        if not rule.profile.startswith(STRUCTURE_PREFIX):
            continue
        try:
            plugin = registry.resolve(PluginFamily.PROJECTION_PROFILE, rule.profile, rule.revision)
            if media_type in plugin.media_types:
                return plugin, plugin.obj.options_model.model_validate(rule.options)
        except (LychdError, ValueError):
            continue  # a rule that does not resolve is reported by the configuration check, not here
    for name in registry.names(PluginFamily.PROJECTION_PROFILE):
        if name.startswith(STRUCTURE_PREFIX):
            plugin = registry.lookup(PluginFamily.PROJECTION_PROFILE, name)
            if media_type in plugin.media_types:
                return plugin, plugin.obj.options_model()
    return None


class _StructureProjector(Projector):
    """A projector whose profile is the structure profile of each media type, not the rule's."""

    def resolve_profile(self, ref: MaterialRef, media_type: str) -> tuple[RegisteredPlugin, BaseModel]:
        found = structure_profile_for(self.config, self.registry, media_type)
        if found is None:
            raise MediaTypeError(f"{ref.source}: no structure profile accepts {media_type}")
        return found


def is_verbatim(contribution: Contribution) -> bool:
    pin = contribution.profile_pin or ""
    return contribution.block is not None and pin.rsplit("@", 1)[0] == VERBATIM


def structure_alternates(projector: Projector, contributions: Sequence[Contribution]) -> dict[str, Contribution]:
    """Block key of each optional verbatim contribution whose media type a structure profile
    covers -> that profile's contribution for the same material (only those that projected)."""
    eligible = [
        c
        for c in contributions
        if is_verbatim(c)
        and not c.ref.required
        and c.media_type is not None
        and structure_profile_for(projector.config, projector.registry, c.media_type) is not None
    ]
    if not eligible:
        return {}
    alternate = _StructureProjector(projector.config, projector.registry, projector.workspace, projector.cache)
    refs = [c.ref.model_copy(update={"profile": None}) for c in eligible]
    found: dict[str, Contribution] = {}
    for original, outcome in zip(eligible, alternate.project_many(refs), strict=True):
        if original.block is not None and outcome.block is not None and outcome.block.text:
            found[original.block.key] = outcome
    return found
