"""Loading a command's configuration: every command runs the check ``config validate`` runs.

A pin that names an unregistered plugin, a wrong revision or options its plugin
refuses stops every command, not only ``lychd config validate``. A configured plugin
family that a command would have to apply but cannot yet is refused by name, never
silently ignored.
"""

from __future__ import annotations

from lychd_core.config import LychdConfig, check_config, default_config, load_config
from lychd_core.errors import ConfigError
from lychd_core.families import PluginFamily
from lychd_core.registry import get_registry

NOT_APPLIED_YET: dict[PluginFamily, str] = {}
"""Families whose configured pins a model-call command could not honour yet, with the reason.
An entry is removed in the change that implements that family's use."""


def configured_families(config: LychdConfig) -> frozenset[PluginFamily]:
    families = {PluginFamily.ROLE_POLICY}
    if config.projection.rules:
        families.add(PluginFamily.PROJECTION_PROFILE)
    if config.privacy_profile is not None:
        families.add(PluginFamily.PRIVACY_PROFILE)
    if config.compression.compressors:
        families.add(PluginFamily.COMPRESSOR)
    return frozenset(families)


def checked_config(path: str | None, *, for_model_call: bool = False) -> LychdConfig:
    """The configuration at ``path`` (or the embedded default), checked against the registry.

    ``for_model_call`` marks a command whose output feeds a model call (``assemble``):
    there, a configured family it cannot apply yet is refused instead of ignored.
    """
    config = load_config(path) if path is not None else default_config()
    check_config(config, get_registry())
    if for_model_call:
        refused = [
            NOT_APPLIED_YET[family] for family in sorted(configured_families(config)) if family in NOT_APPLIED_YET
        ]
        if refused:
            source = path or "<default>"
            raise ConfigError(f"{source}: " + "; ".join(refused), tuple(refused))
    return config
