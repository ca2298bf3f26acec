"""The typed deployment configuration (TOML) and its check against the registry.

Every model forbids unknown keys. Loading reads with ``tomllib``; writing uses
``tomli-w``. Structural errors come from pydantic with their key path; registry
errors (unknown plugin, revision, options) are collected pre-commit style.
"""

from lychd_core.config.checks import check_config, resolve_rule
from lychd_core.config.defaults import (
    DEFAULT_COMPRESSORS,
    DEFAULT_EGRESS,
    STRUCTURE_PROFILES,
    STRUCTURE_REVISIONS,
    default_config,
)
from lychd_core.config.files import dump_config, load_config, parse_config
from lychd_core.config.models import (
    DEFAULT_RANKING,
    MAX_CONFIG_BYTES,
    SCHEMA_VERSION,
    AssemblyConfig,
    CompressionConfig,
    Governors,
    LychdConfig,
    MediaTypeEntry,
    PluginPin,
    ProjectionConfig,
    ProjectionRule,
    StrictModel,
)
from lychd_core.config.pins import ResolvedPin, resolve_pin
from lychd_core.config.problems import format_location, validation_problems

__all__ = [
    "DEFAULT_COMPRESSORS",
    "DEFAULT_EGRESS",
    "DEFAULT_RANKING",
    "MAX_CONFIG_BYTES",
    "SCHEMA_VERSION",
    "STRUCTURE_PROFILES",
    "STRUCTURE_REVISIONS",
    "AssemblyConfig",
    "CompressionConfig",
    "Governors",
    "LychdConfig",
    "MediaTypeEntry",
    "PluginPin",
    "ProjectionConfig",
    "ProjectionRule",
    "ResolvedPin",
    "StrictModel",
    "check_config",
    "default_config",
    "dump_config",
    "format_location",
    "load_config",
    "parse_config",
    "resolve_pin",
    "resolve_rule",
    "validation_problems",
]
