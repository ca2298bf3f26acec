"""An unknown configuration key names the nearest allowed one ("Typo?"), as unknown plugin
names already do (issue 23); with nothing close, the keys allowed there are listed."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from lychd_core.config import LychdConfig, default_config, parse_config
from lychd_core.errors import ConfigError


def base() -> dict[str, Any]:
    return default_config().model_dump(mode="json")


def typo(name: str) -> str:
    """``name`` with one letter dropped (a slip of the finger)."""
    return name[:-2] + name[-1]


def tables() -> list[tuple[str, str]]:
    """(table, key) for every key of every top-level table that is a model."""
    found = []
    for table, info in LychdConfig.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            found += [(table, key) for key in annotation.model_fields if len(key) > 4]
    return found


@pytest.mark.parametrize(("table", "key"), tables())
def test_a_misspelt_key_suggests_the_key_it_meant(table: str, key: str) -> None:
    data = base()
    data.setdefault(table, {})[typo(key)] = data.get(table, {}).pop(key, 1)
    with pytest.raises(ConfigError) as raised:
        parse_config(data)
    assert f"{table}.{typo(key)}: unknown key (not allowed here); did you mean {key!r}? Typo?" in str(raised.value)


def test_top_level_nested_and_listed_keys_get_hints() -> None:
    data = base()
    data["projecton"] = {}
    data["labels"] = [{"path": "src/**", "privacy_class": "public", "categoris": []}]
    data["egress"]["targets"]["hosted"]["max_clas"] = "public"
    data["stores"]["memory"]["pathh"] = "m.sqlite3"
    with pytest.raises(ConfigError) as raised:
        parse_config(data)
    problems = raised.value.problems
    assert "projecton: unknown key (not allowed here); did you mean 'projection'? Typo?" in problems
    assert "labels[0].categoris: unknown key (not allowed here); did you mean 'categories'? Typo?" in problems
    assert any("max_clas" in p and "did you mean 'max_class'" in p for p in problems)
    assert any("stores.memory.pathh" in p and "did you mean 'path'" in p for p in problems)


def test_nothing_close_lists_the_allowed_keys() -> None:
    data = base()
    data["governors"]["zzzzzz"] = 1
    with pytest.raises(ConfigError, match=r"governors.zzzzzz: .*allowed here: char_cap, chars_per_token, turn_window"):
        parse_config(data)
