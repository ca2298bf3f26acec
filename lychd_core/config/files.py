"""Reading (``tomllib``, bounded) and writing (``tomli-w``) configuration files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import ValidationError

from lychd_core.config.models import MAX_CONFIG_BYTES, LychdConfig
from lychd_core.config.problems import validation_problems
from lychd_core.errors import ConfigError
from lychd_core.inputs import parse_toml, read_input_text


def parse_config(data: Mapping[str, Any], source: str = "<config>") -> LychdConfig:
    try:
        return LychdConfig.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, model=LychdConfig)
        raise ConfigError(f"{source}: invalid configuration:\n  " + "\n  ".join(problems), problems) from None


def load_config(path: str | Path) -> LychdConfig:
    """Read and structurally validate a TOML configuration file."""
    text = read_input_text(str(path), what="configuration", max_bytes=MAX_CONFIG_BYTES, error=ConfigError)
    return parse_config(parse_toml(text, source=str(path), error=ConfigError), str(path))


def _drop_empty(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_empty(v) for k, v in value.items() if v not in ({}, [])}
    if isinstance(value, list):
        return [_drop_empty(item) for item in value]
    return value


def dump_config(config: LychdConfig) -> str:
    """TOML text for ``config``; empty option tables and lists are left out."""
    return tomli_w.dumps(_drop_empty(config.model_dump(mode="json", exclude_none=True)))
