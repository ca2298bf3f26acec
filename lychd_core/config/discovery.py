"""Finding the configuration a command uses, as ruff and uv do.

``--config FILE`` wins. Otherwise, from the workspace (or the current folder) upward,
the first folder holding ``lychd.toml``, or a ``pyproject.toml`` with a ``[tool.lychd]``
table, supplies it (``lychd.toml`` first when a folder has both). With neither, the
embedded neutral default applies. :func:`describe` names the choice for summaries.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lychd_core.config.defaults import default_config
from lychd_core.config.files import load_config, parse_config
from lychd_core.config.models import MAX_CONFIG_BYTES, LychdConfig
from lychd_core.errors import ConfigError
from lychd_core.inputs import parse_toml, read_input_text

CONFIG_NAME = "lychd.toml"
PYPROJECT = "pyproject.toml"
MAX_PYPROJECT_BYTES = 4 * MAX_CONFIG_BYTES


@dataclass(frozen=True, slots=True)
class ConfigSource:
    """Where a command's configuration comes from: a file (``table`` set for
    ``[tool.lychd]`` in a ``pyproject.toml``), or the embedded default (``path`` None)."""

    path: Path | None
    table: str | None = None
    searched_from: Path | None = None

    def describe(self) -> str:
        if self.path is None:
            where = f" from {self.searched_from}" if self.searched_from is not None else ""
            return f"the embedded default (no {CONFIG_NAME} or [tool.lychd] found{where} upward)"
        return f"{self.path} [{self.table}]" if self.table else str(self.path)

    def load(self) -> LychdConfig:
        if self.path is None:
            return default_config()
        if self.table is None:
            return load_config(self.path)
        table = _tool_table(self.path)
        if table is None:  # it was there when found: edited since
            raise ConfigError(f"{self.path}: the [tool.lychd] table is gone")
        return parse_config(table, f"{self.path} [tool.lychd]")


def _tool_table(pyproject: Path) -> dict[str, Any] | None:
    text = read_input_text(str(pyproject), what="pyproject.toml", max_bytes=MAX_PYPROJECT_BYTES, error=ConfigError)
    tool = parse_toml(text, source=str(pyproject), error=ConfigError).get("tool")
    table = tool.get("lychd") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: tool.lychd must be a table, got {type(table).__name__}")
    return table


def find_config(start: Path | str) -> ConfigSource:
    """The nearest configuration from ``start`` upward, else the embedded default."""
    folder = Path(os.path.abspath(start))
    searched_from = folder
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        if (candidate / CONFIG_NAME).is_file():
            return ConfigSource(candidate / CONFIG_NAME, searched_from=searched_from)
        pyproject = candidate / PYPROJECT
        if pyproject.is_file() and b"lychd" in _head(pyproject) and _tool_table(pyproject) is not None:
            return ConfigSource(pyproject, "tool.lychd", searched_from)
    return ConfigSource(None, searched_from=searched_from)


def _head(path: Path) -> bytes:
    """The bytes a ``[tool.lychd]`` table would be in (a cheap check before parsing TOML)."""
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_PYPROJECT_BYTES)
    except OSError:
        return b""


def config_source(path: str | None, start: Path | str | None = None) -> ConfigSource:
    """``--config`` when given, else the nearest configuration from ``start`` (default: here)."""
    if path is not None:
        return ConfigSource(Path(path))
    return find_config(Path.cwd() if start is None else start)
