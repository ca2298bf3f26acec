"""Loading a command's configuration: every command runs the check ``config validate`` runs.

A pin that names an unregistered plugin, a wrong revision or options its plugin
refuses stops every command, not only ``lychd config validate``. A configured plugin
family that a command would have to apply but cannot yet is refused by name, never
silently ignored.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lychd_core.config import LychdConfig, check_config
from lychd_core.config.discovery import config_source
from lychd_core.errors import ConfigError
from lychd_core.families import PluginFamily
from lychd_core.registry import get_registry

CONFIG_HELP = (
    "TOML configuration (default: the nearest lychd.toml, or pyproject.toml with [tool.lychd], "
    "from the workspace upward; else the embedded neutral default)"
)

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


def checked_config(path: str | None, *, for_model_call: bool = False, start: Path | str | None = None) -> LychdConfig:
    """The configuration at ``path`` (``--config``), else the nearest ``lychd.toml`` or
    ``[tool.lychd]`` from ``start`` (the workspace; default: here) upward, else the
    embedded default; checked against the registry.

    ``for_model_call`` marks a command whose output feeds a model call (``assemble``):
    there, a configured family it cannot apply yet is refused instead of ignored.
    """
    source = config_source(path, start)
    config = source.load()
    check_config(config, get_registry())
    if for_model_call:
        refused = [
            NOT_APPLIED_YET[family] for family in sorted(configured_families(config)) if family in NOT_APPLIED_YET
        ]
        if refused:
            raise ConfigError(f"{source.describe()}: " + "; ".join(refused), tuple(refused))
    return config


def command_config(args: argparse.Namespace, *, for_model_call: bool = False) -> LychdConfig:
    """A command's checked configuration: its ``--config``, else found from its ``--workspace``."""
    return checked_config(args.config, for_model_call=for_model_call, start=getattr(args, "workspace", None))


def config_in_use(args: argparse.Namespace) -> str:
    """The configuration a command used, for its summary (which file, or the embedded default)."""
    return config_source(args.config, getattr(args, "workspace", None)).describe()
