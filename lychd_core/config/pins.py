"""A configured plugin pin resolved against the registry, its options validated by the
plugin's own model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from lychd_core.config.problems import validation_problems
from lychd_core.errors import ConfigError, PluginCallError
from lychd_core.families import PluginFamily
from lychd_core.registry import RegisteredPlugin, Registry


@dataclass(frozen=True, slots=True)
class ResolvedPin:
    """A configured plugin resolved against the registry, with validated options."""

    plugin: RegisteredPlugin
    options: BaseModel


def resolve_pin(
    registry: Registry, family: PluginFamily, name: str, revision: int, options: dict[str, Any], where: str
) -> ResolvedPin:
    found = registry.resolve(family, name, revision)
    try:
        validated = found.obj.options_model.model_validate(options)
    except ValidationError as exc:
        problems = validation_problems(exc, model=found.obj.options_model)
        raise ConfigError(f"{where}.options rejected by {found.pin}: " + "; ".join(problems)) from None
    except RecursionError:
        raise ConfigError(f"{where}.options of {found.pin} are nested too deeply") from None
    except Exception as exc:  # a plugin's own validator crashed: its fault, typed and named
        raise PluginCallError(
            f"options model of {found.pin} from {found.distribution} raised {type(exc).__name__}: {exc}"
        ) from exc
    return ResolvedPin(found, validated)
