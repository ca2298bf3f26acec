"""Media-type decisions: one normalized type per material, by a fixed precedence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lychd_core.config import default_config
from lychd_core.errors import MediaTypeError
from lychd_core.mediatypes import is_textual, normalize_media_type
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.media import detect_media_type
from lychd_core.projection.projector import Projector
from lychd_core.registry import get_registry


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("text/x-script.python", "text/x-python"),
        ("Text/X-Python; charset=utf-8", "text/x-python"),
        ("application/x-toml", "application/toml"),
        ("text/yaml", "application/yaml"),
        ("application/javascript", "text/javascript"),
        ("text/plain", "text/plain"),
    ],
)
def test_normalization(raw: str, normal: str) -> None:
    assert normalize_media_type(raw) == normal


@pytest.mark.parametrize("raw", ["", "text", "text/", "/plain", "text plain", "t@xt/plain"])
def test_malformed_media_types_are_typed_errors(raw: str) -> None:
    with pytest.raises(MediaTypeError):
        normalize_media_type(raw)


def test_binary_content_wins_over_everything() -> None:
    decision = detect_media_type("tool.py", b"\x7fELF\x02\x01\x01\x00\x00\x00binary")
    assert decision.is_binary and not is_textual(decision.media_type)


def test_binary_named_py_with_null_bytes_is_binary() -> None:
    decision = detect_media_type("x.py", b"def f():\x00\n")
    assert decision.is_binary and not is_textual(decision.media_type)


def test_pinned_text_on_binary_refuses() -> None:
    with pytest.raises(MediaTypeError):
        detect_media_type("x.bin", b"\x00\x01\x02", pinned="text/plain")


def test_pinned_beats_name_and_extension() -> None:
    decision = detect_media_type("notes.txt", b"print('hi')\n", pinned="text/x-python")
    assert (decision.media_type, decision.source) == ("text/x-python", "pinned")


def test_file_name_then_extension_then_shebang_then_libmagic() -> None:
    assert detect_media_type("Makefile", b"all:\n\techo\n").source == "file-name"
    assert detect_media_type("a/b/mod.PY", b"x = 1\n").media_type == "text/x-python"
    shebang = detect_media_type("tool", b"#!/usr/bin/env python3\nprint(1)\n")
    assert (shebang.media_type, shebang.source) == ("text/x-python", "shebang")
    shell = detect_media_type("run", b"#!/bin/bash\necho hi\n")
    assert (shell.media_type, shell.source) == ("text/x-shellscript", "shebang")
    plain = detect_media_type("README.weird", b"just words\n")
    assert plain.source == "libmagic" and plain.media_type == "text/plain"


def test_bom_and_crlf_text_stay_text() -> None:
    assert detect_media_type("a.py", b"\xef\xbb\xbfx = 1\r\n").media_type == "text/x-python"
    assert detect_media_type("a.md", b"# T\r\n\r\nbody\r\n").media_type == "text/markdown"


def test_invalid_utf8_is_not_binary_by_itself() -> None:
    decision = detect_media_type("a.txt", b"caf\xe9 au lait\n")
    assert decision.media_type == "text/plain" and not decision.is_binary


def test_empty_file_is_text() -> None:
    assert detect_media_type("empty.py", b"").media_type == "text/x-python"


@given(st.binary(min_size=1, max_size=200), st.sampled_from(["a.py", "b.txt", "c.json", "noext"]))
def test_bytes_with_a_nul_never_become_text(data: bytes, name: str) -> None:
    data = data + b"\x00"
    assert not is_textual(detect_media_type(name, data).media_type)


@given(st.sampled_from(["text/x-python", "application/x-yaml", "TEXT/MARKDOWN", "application/json; q=1"]))
def test_normalization_is_idempotent(raw: str) -> None:
    once = normalize_media_type(raw)
    assert normalize_media_type(once) == once


MAN_PAGE = b'.TH RG 1 2024-01-01 "ripgrep" "User Commands"\n.SH NAME\nrg \\- recursively search\n.SH SYNOPSIS\n'


def test_a_man_page_is_troff_and_projects_verbatim(tmp_path: Path) -> None:
    """Found on ripgrep: ``template.rg.1`` was unavailable, 'no projection rule for text/troff'."""
    detected = detect_media_type("doc/template.rg.1", MAN_PAGE)
    assert (detected.media_type, detected.source) == ("text/troff", "libmagic")
    (tmp_path / "template.rg.1").write_bytes(MAN_PAGE)
    outcome = Projector(default_config(), get_registry(), Workspace(tmp_path))
    outcome = outcome.project(MaterialRef.for_current(outcome.workspace, "template.rg.1"))
    assert outcome.unavailable is None and outcome.block is not None
    assert (outcome.media_type, outcome.profile_pin) == ("text/troff", "verbatim@1")


def test_every_text_type_libmagic_answers_with_has_a_default_rule() -> None:
    """The whole class: every ``text/*`` MIME name in the installed libmagic database has a rule."""
    database = next(p for p in (Path("/usr/lib/file/magic.mgc"), Path("/usr/share/misc/magic.mgc")) if p.is_file())
    named = {
        normalize_media_type(m.decode()) for m in re.findall(rb"\x00(text/[A-Za-z0-9.+-]+)\x00", database.read_bytes())
    }
    assert len(named) > 20, "the database names its MIME types; the scan found too few to be the database"
    rules = set(default_config().projection.rules)
    assert sorted(named - rules) == []
