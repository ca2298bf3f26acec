"""Declared media types: the configuration's [media_types] and the profiles' file_media_types."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from lychd_core.config import check_config, default_config, load_config, parse_config
from lychd_core.config.media_table import EMPTY_TABLE, candidate_extensions, media_table
from lychd_core.errors import ConfigError, MediaTypeConflictError, PluginValidationError
from lychd_core.families import PluginFamily, Projected, SourceMaterial
from lychd_core.mediatypes import EXTENSIONS, FILE_NAMES, is_textual, known_text_types
from lychd_core.plugins import PluginSource
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.media import detect_media_type
from lychd_core.projection.projector import Projector
from lychd_core.registry import Registry, get_registry
from lychd_core.stores.sqlite.cache import ProjectionCache


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Declaring:
    """A projection profile declaring its own file kinds."""

    revision = 1
    options_model = NoOptions
    parser_version = "declaring 1"

    def __init__(self, name: str, media_types: set[str], files: dict[str, str]) -> None:
        self.name = name
        self.media_types = frozenset(media_types)
        self.file_media_types = MappingProxyType(files)

    def project(self, source: SourceMaterial, options: BaseModel) -> Projected:
        return Projected(text=f"{self.name}: {len(source.data)} bytes")


def registry(*profiles: tuple[Declaring, str]) -> Registry:
    reg = Registry()
    for profile, distribution in profiles:
        reg.add(PluginFamily.PROJECTION_PROFILE, profile, PluginSource(distribution, "1.0"))
    return reg


def config(media_types: dict[str, Any] | None = None, rules: dict[str, Any] | None = None) -> Any:
    data = default_config().model_dump(mode="json")
    data["media_types"] = media_types or {}
    data["projection"]["rules"].update(rules or {})
    return parse_config(data)


TOY = (Declaring("toy.a", {"text/x-toy"}, {".toy": "text/x-toy", "Toyfile": "text/x-toy"}), "dist-a")
RIVAL = (Declaring("toy.b", {"text/x-rival"}, {".toy": "text/x-rival"}), "dist-b")


# --- the configuration table ----------------------------------------------------


def test_configuration_entries_decide_first() -> None:
    table = media_table(config({".toy": "text/x-toy", "Justfile": "text/x-makefile"}), registry(RIVAL))
    decision = detect_media_type("src/a.toy", b"anything\n", table=table)
    assert (decision.media_type, decision.source) == ("text/x-toy", "config-extension")
    named = detect_media_type("Justfile", b"build:\n\techo\n", table=table)
    assert (named.media_type, named.source) == ("text/x-makefile", "config-file-name")


@pytest.mark.parametrize(
    ("entries", "needle"),
    [
        ({".py": "text/plain"}, "the core maps it to 'text/x-python'"),
        ({"Makefile": "text/plain"}, "override = true"),
        ({".toy": {"media_type": "text/x-toy", "override": True}}, "the core does not map it; drop override"),
        ({".py": {"media_type": "text/x-python", "override": True}}, "already"),
        ({"*.toy": "text/x-toy"}, "glob"),
        ({"src/a.toy": "text/x-toy"}, "no paths"),
        ({".TOY": "text/x-toy"}, "lower case"),
        ({".toy": "Text/X-Toy"}, "not normalized"),
        ({".toy": "toy"}, "not a media type"),
        ({".toy": {"media_type": "text/x-toy", "extra": 1}}, "unknown key"),
    ],
)
def test_bad_configuration_entries_are_refused_with_the_conflict_named(entries: dict[str, Any], needle: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config(entries)
    assert needle in str(caught.value)


def test_override_replaces_a_core_mapping() -> None:
    table = media_table(config({".h": {"media_type": "text/x-c++", "override": True}}), Registry())
    decision = detect_media_type("inc/a.h", b"class A {};\n", table=table)
    assert (decision.media_type, decision.source) == ("text/x-c++", "config-extension")
    assert detect_media_type("inc/a.h", b"int x;\n").media_type == "text/x-c"


# --- profile declarations ---------------------------------------------------------


def test_profile_declarations_decide_after_the_configuration() -> None:
    table = media_table(config(), registry(TOY))
    assert detect_media_type("a.toy", b"x\n", table=table).source == "profile-extension"
    assert detect_media_type("deep/Toyfile", b"x\n", table=table).source == "profile-file-name"
    found = table.lookup("a.toy")
    assert found is not None and found[0].declared_by == "toy.a@1 from dist-a 1.0"
    assert detect_media_type("a.py", b"x = 1\n", table=table).source == "extension"


def test_two_profiles_claiming_one_extension_name_both_distributions() -> None:
    with pytest.raises(MediaTypeConflictError) as caught:
        media_table(config(), registry(TOY, RIVAL))
    message = str(caught.value)
    assert "'.toy'" in message and "dist-a" in message and "dist-b" in message
    assert "text/x-toy" in message and "text/x-rival" in message and "[media_types]" in message


def test_the_configuration_settles_a_conflict() -> None:
    table = media_table(config({".toy": "text/x-rival"}), registry(TOY, RIVAL))
    decision = detect_media_type("a.toy", b"x\n", table=table)
    assert (decision.media_type, decision.source) == ("text/x-rival", "config-extension")


def test_a_profile_departing_from_the_core_conflicts_too() -> None:
    rogue = (Declaring("rogue", {"text/x-rogue"}, {".py": "text/x-rogue"}), "dist-rogue")
    with pytest.raises(MediaTypeConflictError) as caught:
        media_table(config(), registry(rogue))
    assert "dist-rogue" in str(caught.value) and "the core maps it to text/x-python" in str(caught.value)
    same = (Declaring("same", {"text/x-python"}, {".py": "text/x-python"}), "dist-same")
    assert detect_media_type("a.py", b"x\n", table=media_table(config(), registry(same))).source == "extension"


def test_check_config_reports_a_conflict() -> None:
    reg = registry(TOY, RIVAL)
    with pytest.raises(ConfigError) as caught:
        check_config(parse_config({"schema_version": 1, "role_policy": {"name": "x", "revision": 1}}), reg)
    assert any(problem.startswith("media_types:") and "dist-b" in problem for problem in caught.value.problems)


@pytest.mark.parametrize(
    ("files", "needle"),
    [
        ({".toy": "text/x-other"}, "does not accept"),
        ({"*.toy": "text/x-toy"}, "glob"),
        ({".toy": "Text/X-Toy"}, "normalized"),
        ({"a/b": "text/x-toy"}, "no paths"),
    ],
)
def test_bad_declarations_are_refused_at_registration(files: dict[str, str], needle: str) -> None:
    with pytest.raises(PluginValidationError) as caught:
        registry((Declaring("bad", {"text/x-toy"}, files), "dist-bad"))
    assert needle in str(caught.value) and "dist-bad" in str(caught.value)


def test_a_conflict_refuses_the_whole_projection_run(tmp_path: Path) -> None:
    (tmp_path / "a.toy").write_text("x\n")
    projector = Projector(config(), registry(TOY, RIVAL), Workspace(tmp_path))
    with pytest.raises(MediaTypeConflictError):
        projector.project_many([MaterialRef.for_current(Workspace(tmp_path), "a.toy", required=False)])


# --- the cache's detector identity ----------------------------------------------


def test_remembered_decisions_are_keyed_by_the_declared_tables(tmp_path: Path) -> None:
    (tmp_path / "a.toy").write_text("x\n")
    cache = ProjectionCache(tmp_path / "cache.sqlite3")
    rules = {"text/x-toy": {"profile": "toy.a", "revision": 1}, "text/x-rival": {"profile": "toy.b", "revision": 1}}
    reg = registry(TOY, RIVAL)
    ref = MaterialRef.for_current(Workspace(tmp_path), "a.toy")
    first = Projector(config({".toy": "text/x-toy"}, rules), reg, Workspace(tmp_path), cache).project(ref)
    second = Projector(config({".toy": "text/x-rival"}, rules), reg, Workspace(tmp_path), cache).project(ref)
    cache.close()
    assert first.media_type == "text/x-toy" and first.profile_pin == "toy.a@1"
    assert second.media_type == "text/x-rival" and second.profile_pin == "toy.b@1"


# --- every text file projected by default ---------------------------------------


def test_default_configuration_has_a_rule_for_every_text_type_the_core_knows() -> None:
    rules = default_config().projection.rules
    assert known_text_types() <= set(rules)
    assert {kind for kind in (*EXTENSIONS.values(), *FILE_NAMES.values()) if is_textual(kind)} <= set(rules)
    for media_type, rule in rules.items():
        assert rule.profile.startswith("structure.") or rule.profile == "verbatim", media_type
    # The shipped profile (the README's main job) too: it once lacked text/troff.
    shipped = load_config(Path(__file__).resolve().parents[1] / "profiles" / "default.toml").projection.rules
    assert sorted(known_text_types() - set(shipped)) == []


def test_default_configuration_validates_against_the_installed_plugins() -> None:
    reg = get_registry()
    check_config(default_config(), reg)
    for media_type, rule in default_config().projection.rules.items():
        assert media_type in reg.resolve(PluginFamily.PROJECTION_PROFILE, rule.profile, rule.revision).media_types


# --- properties -----------------------------------------------------------------

KEY = st.from_regex(r"\.[a-z][a-z0-9]{0,5}", fullmatch=True).filter(lambda key: key not in EXTENSIONS)
STEM = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True)


@given(key=KEY, stem=STEM, data=st.binary(max_size=64).filter(lambda b: b"\x00" not in b))
def test_a_configured_extension_always_decides_text(key: str, stem: str, data: bytes) -> None:
    table = media_table(config({key: "text/x-declared"}), Registry())
    decision = detect_media_type(f"dir/{stem}{key.upper()}", data, table=table)
    if not decision.is_binary:
        assert (decision.media_type, decision.source) == ("text/x-declared", "config-extension")
    assert detect_media_type(f"dir/{stem}{key}", data, table=EMPTY_TABLE).media_type != "text/x-declared"


@given(st.lists(STEM, min_size=1, max_size=4))
def test_candidate_extensions_are_suffixes_longest_first(parts: list[str]) -> None:
    name = ".".join(parts)
    candidates = candidate_extensions(name)
    assert all(name.lower().endswith(candidate) for candidate in candidates)
    assert [len(c) for c in candidates] == sorted((len(c) for c in candidates), reverse=True)


@given(st.dictionaries(KEY, st.sampled_from(["text/x-a", "text/x-b"]), max_size=4))
def test_table_identity_follows_its_content(entries: dict[str, str]) -> None:
    first = media_table(config(entries), Registry())
    again = media_table(config(dict(reversed(list(entries.items())))), Registry())
    assert first.identity == again.identity
    if entries:
        assert first.identity != EMPTY_TABLE.identity


# --- libmagic is asked only when it can add something -----------------------------


def test_a_deciding_name_on_plain_text_skips_libmagic(monkeypatch: pytest.MonkeyPatch) -> None:
    from lychd_core.projection import media

    calls: list[bytes] = []
    real = media.sniff
    monkeypatch.setattr(media, "sniff", lambda data: calls.append(data) or real(data))
    decision = media.detect_media_type("a.ts", "const café = 1;\n".encode())
    assert (decision.media_type, decision.charset, decision.magic_type) == ("text/x-typescript", "utf-8", "not-sniffed")
    assert not calls
    controls = media.detect_media_type("a.ts", b"\x01\x02\x03\x04 not text\n")
    assert calls and controls.magic_type != "not-sniffed"  # control characters: libmagic decides
    latin1 = media.detect_media_type("a.txt", b"caf\xe9\n")
    assert latin1.magic_type != "not-sniffed" and latin1.media_type == "text/plain"


@given(st.binary(max_size=120))
def test_skipping_libmagic_never_turns_binary_into_text(data: bytes) -> None:
    decision = detect_media_type("a.py", data)
    if decision.magic_type == "not-sniffed":
        assert b"\x00" not in data and isinstance(data.decode("utf-8"), str)
