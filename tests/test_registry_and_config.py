"""Registry validation of plugin objects, and the typed TOML configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lychd_toy.plugins import HeadCompressor, ToyRoles, UpperProfile
from pydantic import BaseModel, ConfigDict

from lychd_core.config import (
    LychdConfig,
    check_config,
    default_config,
    dump_config,
    load_config,
    parse_config,
    resolve_rule,
)
from lychd_core.errors import (
    ConfigError,
    MediaTypeError,
    PluginValidationError,
    RevisionMismatchError,
    UnknownPluginError,
)
from lychd_core.families import PluginFamily
from lychd_core.registry import Registry, registry_from

ROOT = Path(__file__).resolve().parents[1]


def toy_registry() -> Registry:
    return registry_from(
        [
            (PluginFamily.PROJECTION_PROFILE, UpperProfile()),
            (PluginFamily.ROLE_POLICY, ToyRoles()),
            (PluginFamily.COMPRESSOR, HeadCompressor()),
        ],
        distribution="lychd-toy-plugin",
    )


def toy_config(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schema_version": 1,
        "projection": {"rules": {"text/x-toy": {"profile": "toy.upper", "revision": 1}}},
        "role_policy": {"name": "toy.roles", "revision": 1},
    }
    data.update(overrides)
    return data


class Loose(BaseModel):
    pass


def with_attrs(**attrs: Any) -> Any:
    base = UpperProfile()
    return type(
        "Patched",
        (),
        {
            **{
                k: getattr(base, k)
                for k in ("name", "revision", "options_model", "media_types", "parser_version", "project")
            },
            **attrs,
        },
    )()


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"name": "Bad Name"}, "name"),
        ({"revision": True}, "revision"),
        ({"revision": 0}, "revision"),
        ({"options_model": Loose}, "extra='forbid'"),
        ({"options_model": dict}, "pydantic"),
        ({"media_types": frozenset({"Text/X-Toy"})}, "normalized"),
        ({"media_types": frozenset({"nonsense"})}, "media type"),
        ({"parser_version": ""}, "parser_version"),
        ({"project": None}, "project"),
    ],
)
def test_registry_rejects_malformed_plugins(attrs: dict[str, Any], message: str) -> None:
    with pytest.raises(PluginValidationError, match=message):
        registry_from([(PluginFamily.PROJECTION_PROFILE, with_attrs(**attrs))])


def test_options_model_needs_defaults() -> None:
    class NeedsValue(BaseModel):
        model_config = ConfigDict(extra="forbid")
        level: int

    with pytest.raises(PluginValidationError, match="default"):
        registry_from([(PluginFamily.PROJECTION_PROFILE, with_attrs(options_model=NeedsValue))])


def test_unknown_plugin_lists_known_and_suggests() -> None:
    with pytest.raises(UnknownPluginError, match=r"known: toy\.upper\).*Did you mean 'toy\.upper'"):
        toy_registry().resolve(PluginFamily.PROJECTION_PROFILE, "toy.uper", 1)


def test_revision_mismatch_says_what_is_installed() -> None:
    with pytest.raises(
        RevisionMismatchError, match=r"revision 2 is pinned, but revision 1 is installed \(from lychd-toy"
    ):
        toy_registry().resolve(PluginFamily.PROJECTION_PROFILE, "toy.upper", 2)


def test_malformed_toml_reports_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("schema_version = 1\n[governors\nturn_window = 3\n")
    with pytest.raises(ConfigError, match=r"line 2, column"):
        load_config(path)


def test_misspelled_key_three_levels_deep_names_its_path() -> None:
    data = toy_config(stores={"memory": {"path": "m.sqlite3", "bakend": "sqlite"}})
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    assert info.value.problems == (
        "stores.memory.bakend: unknown key (not allowed here); did you mean 'backend'? Typo?",
    )


@pytest.mark.parametrize(
    ("overrides", "where"),
    [
        ({"governors": {"turn_window": "20"}}, "governors.turn_window"),
        ({"governors": {"char_cap": 0}}, "governors.char_cap"),
        ({"schema_version": 2}, "schema_version"),
        ({"projection": {"rules": {"Text/Plain": {"profile": "verbatim", "revision": 1}}}}, "projection.rules"),
        ({"role_policy": {"name": "toy.roles", "revision": "1"}}, "role_policy.revision"),
        ({"extra_table": {}}, "extra_table: unknown key"),
    ],
)
def test_wrong_types_and_values_name_their_key(overrides: dict[str, Any], where: str) -> None:
    with pytest.raises(ConfigError, match=where.replace(".", r"\.")):
        parse_config(toy_config(**overrides))


def test_check_config_collects_every_registry_problem() -> None:
    data = toy_config(
        projection={
            "rules": {
                "text/x-toy": {"profile": "toy.upper", "revision": 2},
                "text/plain": {"profile": "toy.uper", "revision": 1},
                "text/x-other": {"profile": "toy.upper", "revision": 1},
            }
        },
        compression={"compressors": [{"name": "toy.head", "revision": 1, "options": {"ratio": 3}}]},
    )
    with pytest.raises(ConfigError) as info:
        check_config(parse_config(data), toy_registry())
    text = "\n".join(info.value.problems)
    assert "revision 2 is pinned, but revision 1 is installed" in text
    assert "Did you mean 'toy.upper'" in text
    assert "does not accept text/x-other" in text
    assert "compression.compressors[0].options rejected by toy.head@1: ratio: unknown key" in text


def test_plugin_options_are_validated_with_field_path() -> None:
    data = toy_config(
        projection={"rules": {"text/x-toy": {"profile": "toy.upper", "revision": 1, "options": {"strip": "sometimes"}}}}
    )
    with pytest.raises(ConfigError, match=r"strip: Input should be a valid boolean"):
        check_config(parse_config(data), toy_registry())


def test_rule_lookup_refuses_media_type_without_rule() -> None:
    config = parse_config(toy_config())
    assert resolve_rule(config, toy_registry(), "text/x-toy").plugin.name == "toy.upper"
    with pytest.raises(MediaTypeError, match=r"no projection rule for media type 'text/x-python'.*text/x-toy"):
        resolve_rule(config, toy_registry(), "text/x-python")


def test_dump_and_load_round_trip(tmp_path: Path) -> None:
    config = parse_config(toy_config(governors={"turn_window": 5, "char_cap": 1000, "chars_per_token": 4}))
    path = tmp_path / "c.toml"
    path.write_text(dump_config(config))
    assert load_config(path) == config


def test_profiles_default_is_the_embedded_default_plus_this_repositorys_labels() -> None:
    profile = load_config(ROOT / "profiles" / "default.toml")
    assert profile.labels, "the repository profile labels this repository's material"
    assert profile.model_copy(update={"labels": []}) == default_config()
    assert (ROOT / "profiles" / "default.toml").read_text() == dump_config(profile)


def test_the_embedded_default_is_neutral() -> None:
    """No rule of any one repository: unlabelled material stays restricted everywhere."""
    assert default_config().labels == []


def test_default_governors_match_the_reference() -> None:
    governors = default_config().governors
    assert (governors.turn_window, governors.char_cap, governors.chars_per_token) == (20, 96_000, 3)


def test_json_schema_forbids_unknown_keys() -> None:
    schema = LychdConfig.model_json_schema()
    assert schema["additionalProperties"] is False
    assert all(d.get("additionalProperties") is False for d in schema["$defs"].values())
