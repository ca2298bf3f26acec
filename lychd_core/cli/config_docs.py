"""Generate the configuration reference (docs/configuration.md) from field metadata.

Run ``python -m lychd_core.cli.config_docs > docs/configuration.md``; a test keeps the
file in step with the models, and checks every field has a description and example.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from lychd_core.config import LychdConfig, default_config, dump_config

HEADER = """# Configuration reference

A deployment configuration is one TOML file. Every command uses `--config FILE` when
given, else the nearest `lychd.toml` (or a `pyproject.toml` with a `[tool.lychd]`
table) from its workspace (or the current folder) upward, else the embedded neutral
default below, which labels nothing (so only the built-in `local` target admits
material until you add `[[labels]]` rules). `lychd config init` writes that default,
commented, as `lychd.toml`; `lychd config validate [FILE]` checks a file against the
installed plugins; `lychd config schema` prints the JSON Schema for editor completion.
`profiles/default.toml` is this default plus this repository's own label rules.
Every table forbids unknown keys. This page is generated from the
field descriptions by `python -m lychd_core.cli.config_docs`; do not edit it by hand.
"""


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    if get_origin(annotation) is not None or get_args(annotation):
        for arg in get_args(annotation):
            yield from _models_in(arg)


def iter_fields(model: type[BaseModel] = LychdConfig, prefix: str = "") -> Iterator[tuple[str, FieldInfo]]:
    """Every field of the configuration tree as (dotted key, FieldInfo), depth first."""
    for name, info in model.model_fields.items():
        key = f"{prefix}{name}"
        yield key, info
        for sub in _models_in(info.annotation):
            yield from iter_fields(sub, f"{key}." if get_origin(info.annotation) is not dict else f"{key}.<key>.")


def _type_name(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) if get_origin(annotation) is None else None
    text = text or str(annotation).replace("typing.", "").replace("lychd_core.config.models.", "")
    text = text.replace("lychd_core.privacy.settings.", "")
    return text.replace("|", "\\|")


def render() -> str:
    lines = [HEADER, "## Keys", "", "| key | type | default | description | example |", "|---|---|---|---|---|"]
    for key, info in iter_fields():
        default = "required" if info.is_required() else _default_text(info)
        example = json.dumps(info.examples[0]) if info.examples else ""
        description = (info.description or "").replace("|", "\\|")
        lines.append(f"| `{key}` | `{_type_name(info.annotation)}` | {default} | {description} | `{example}` |")
    lines += [
        "",
        "## The embedded default",
        "",
        "```toml",
        dump_config(default_config()).rstrip(),
    ]
    lines += ["```", ""]
    return "\n".join(lines)


def _default_text(info: FieldInfo) -> str:
    value = info.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "(table)"
    return f"`{json.dumps(value)}`"


if __name__ == "__main__":
    print(render(), end="")
