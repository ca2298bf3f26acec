"""The commented, neutral configuration ``lychd config init`` writes.

The body is ``dump_config(default_config())`` (so it loads to exactly the embedded
default); each table and key gains its field description as a comment, and a commented
``[[labels]]`` example closes the file, since labels are what a user must add for a
hosted target to receive anything.
"""

from __future__ import annotations

import re
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from lychd_core.config.defaults import default_config
from lychd_core.config.files import dump_config
from lychd_core.config.models import LychdConfig

HEADER = """\
# lychd configuration, written by `lychd config init`.
# Every lychd command run in this folder or below it uses this file (unless --config
# names another). Check it with `lychd config validate`; every key is described in
# docs/configuration.md, and `lychd config schema` prints a JSON Schema for editors.
"""
LABELS_EXAMPLE = """\
# [[labels]]: what your material is, so an egress target can decide whether it may
# receive it. Unmatched material is restricted with unknown lineage, which only the
# built-in "local" target admits; "hosted" above admits up to internal. The first
# matching rule wins. Uncomment and adapt, for example:
#
# [[labels]]
# path = "src/**"
# privacy_class = "internal"
# categories = ["source-code"]
#
# [[labels]]
# path = "docs/**"
# privacy_class = "public"
# categories = ["documentation"]
"""
_TABLE = re.compile(r"^\[\[?(?P<path>[^\]]+)\]\]?$")
_KEY = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_-]*) = ")
_PART = re.compile(r'"[^"]*"|[^.]+')


def _value_model(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """The model a field holds (directly, optionally, or as dict values), and whether via a dict."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    args = get_args(annotation)
    if get_origin(annotation) is dict:
        return _value_model(args[1])[0], True
    for arg in args:
        found = _value_model(arg)
        if found[0] is not None:
            return found
    return None, False


def _describe(parts: list[str]) -> str | None:
    """The description of the field at ``parts`` (dict keys skipped), or None."""
    model: type[BaseModel] | None = LychdConfig
    description = None
    keyed = False
    for part in parts:
        if keyed:  # a dict key (a media type, a target name): its values share one model
            keyed = False
            continue
        if model is None or part not in model.model_fields:
            return None
        info = model.model_fields[part]
        description = info.description
        model, keyed = _value_model(info.annotation)
    return description


def _comment(text: str | None) -> list[str]:
    return [f"# {text}"] if text else []


def commented_config() -> str:
    """The neutral default as commented TOML (it loads to exactly ``default_config()``)."""
    lines = [*HEADER.splitlines(), ""]
    table: list[str] = []
    described: set[str] = set()
    for line in dump_config(default_config()).splitlines():
        header, key = _TABLE.match(line), _KEY.match(line)
        if header:
            table = [part.strip('"') for part in _PART.findall(header["path"])]
            # One comment per kind of table: the first projection rule, not each of 41.
            kind = ".".join(table[:2]) if table[:2] == ["projection", "rules"] else ".".join(table)
            if kind not in described:
                described.add(kind)
                lines += [
                    *([""] if lines[-1] else []),
                    *_comment(_describe(table[:2]) if kind == "projection.rules" else _describe(table)),
                ]
            lines.append(line)
            continue
        if key and table[:2] != ["projection", "rules"]:
            lines += _comment(_describe([*table, key["key"]]))
        if line or lines[-1]:
            lines.append(line)
    return "\n".join(lines).rstrip() + "\n\n" + LABELS_EXAMPLE
