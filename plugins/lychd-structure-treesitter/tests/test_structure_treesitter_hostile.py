"""Hostile input per language: deep nesting, a 10 MB minified file, invalid UTF-8, another language.

Each is a typed, explained outcome (a bounded outline or Unavailable), never a crash,
never full text; the same bytes always give the same outcome.
"""

from __future__ import annotations

import pytest
from lychd_structure_treesitter import PROFILES, StructureTreeSitterOptions

from lychd_core.digests import sha256_digest
from lychd_core.families import Projected, SourceMaterial, Unavailable

BY_MEDIA_TYPE = {media: profile for profile in PROFILES for media in profile.media_types}
MEDIA_TYPES = sorted(BY_MEDIA_TYPE)
DEPTH = 5_000

# (prefix, unit with %d, suffix) of a one-line minified file, per language.
MINIFIED = {
    "text/javascript": (b"", b"var a%d=function(b){return b+1};", b""),
    "text/x-typescript": (b"", b"let a%d=(b:number):number=>b+1;", b""),
    "text/x-tsx": (b"", b"const C%d=(p:{n:number})=><i>{p.n}</i>;", b""),
    "text/x-go": (b"package p;", b"func f%d(b int)int{return b+1};", b""),
    "text/x-rust": (b"", b"fn f%d(b:i32)->i32{b+1}", b""),
    "text/x-java": (b"class A{", b"int m%d(int b){return b+1;}", b"}"),
}
# Deep nesting that is valid in each language: brackets inside one declaration.
NESTED = {
    "text/javascript": b"const x = " + b"(" * DEPTH + b"1" + b")" * DEPTH + b";\nfunction f() {}\n",
    "text/x-typescript": b"const x: number = " + b"(" * DEPTH + b"1" + b")" * DEPTH + b";\nfunction f() {}\n",
    "text/x-tsx": b"const x = " + b"[" * DEPTH + b"]" * DEPTH + b";\nfunction f() {}\n",
    "text/x-go": b"package p\nfunc f() { x := " + b"(" * DEPTH + b"1" + b")" * DEPTH + b"; _ = x }\n",
    "text/x-rust": b"fn f() { let x = " + b"(" * DEPTH + b"1" + b")" * DEPTH + b"; }\n",
    "text/x-java": b"class A { int x = " + b"(" * DEPTH + b"1" + b")" * DEPTH + b"; }\n",
}
# Deeply nested declarations (classes, namespaces, modules): the outline stays bounded.
NESTED_DECLARATIONS = {
    "text/javascript": b"class A { m() {" * 200 + b"}}" * 200 + b"\n",
    "text/x-typescript": b"namespace N {" * DEPTH + b"}" * DEPTH + b"\n",
    "text/x-tsx": b"namespace N {" * DEPTH + b"}" * DEPTH + b"\n",
    "text/x-go": b"package p\ntype T struct {" + b"a struct {" * DEPTH + b"}" * DEPTH + b"}\n",
    "text/x-rust": b"mod m {" * DEPTH + b"}" * DEPTH + b"\n",
    "text/x-java": b"class A {" * DEPTH + b"}" * DEPTH + b"\n",
}
PYTHON = b'import os\n\n\n@decorator\ndef greet(name: str) -> str:\n    """Hi."""\n    return f"hi {name}"\n'


def project(media_type: str, data: bytes, max_bytes: int = 2_000_000, max_chars: int = 96_000) -> object:
    source = SourceMaterial("hostile", media_type, data, sha256_digest(data), max_bytes, max_chars)
    first = BY_MEDIA_TYPE[media_type].project(source, StructureTreeSitterOptions())
    assert isinstance(first, (Projected, Unavailable))
    if isinstance(first, Projected):
        assert len(first.text) <= max_chars and len(first.line_map) == len(first.text.splitlines())
    else:
        assert first.reason
    return first


@pytest.mark.parametrize("media_type", MEDIA_TYPES)
def test_five_thousand_nested_brackets(media_type: str) -> None:
    outcome = project(media_type, NESTED[media_type])
    assert outcome == project(media_type, NESTED[media_type])
    assert isinstance(outcome, Projected), outcome
    assert "(((" not in outcome.text and "[[[" not in outcome.text  # an outline, not the text
    unbalanced = project(media_type, b"(" * DEPTH + b"[" * DEPTH)
    assert isinstance(unbalanced, Unavailable) and "grammar reports" in unbalanced.reason


@pytest.mark.parametrize("media_type", MEDIA_TYPES)
def test_nested_declarations_stay_bounded(media_type: str) -> None:
    outcome = project(media_type, NESTED_DECLARATIONS[media_type])
    assert isinstance(outcome, Projected), outcome
    assert len(outcome.text.splitlines()) < 30


def minified(media_type: str, size: int = 10_000_000) -> bytes:
    prefix, unit, suffix = MINIFIED[media_type]
    parts, total, index = [prefix], len(prefix), 0
    while total < size:
        part = unit % index
        parts.append(part)
        total, index = total + len(part), index + 1
    return b"".join([*parts, suffix])


@pytest.mark.parametrize("media_type", MEDIA_TYPES)
def test_ten_megabyte_minified_file_over_the_default_byte_bound(media_type: str) -> None:
    data = minified(media_type)
    outcome = project(media_type, data)
    assert isinstance(outcome, Unavailable) and "over the bound of 2000000" in outcome.reason


@pytest.mark.parametrize("media_type", MEDIA_TYPES)
def test_ten_megabyte_minified_file_is_not_parsed_under_a_raised_bound(media_type: str) -> None:
    data = minified(media_type)
    assert len(data) >= 10_000_000 and data.count(b"\n") == 0
    outcome = project(media_type, data, max_bytes=len(data))
    assert isinstance(outcome, Unavailable), "tree-sitter would need about 1.1 GB for it (see bounds.py)"
    assert "tree-sitter parses" in outcome.reason  # the parse bound, before any parse


@pytest.mark.parametrize("media_type", MEDIA_TYPES)
def test_invalid_utf8(media_type: str) -> None:
    outcome = project(media_type, b"const a = 1;\n\xff\xfe\xfd\n")
    assert isinstance(outcome, Unavailable) and "not valid UTF-8" in outcome.reason and "offset 13" in outcome.reason
    nul = project(media_type, b"const a = 1;\x00\n")
    assert isinstance(nul, Unavailable) and "null byte" in nul.reason


@pytest.mark.parametrize("media_type", MEDIA_TYPES)
def test_a_file_valid_only_in_another_language(media_type: str) -> None:
    outcome = project(media_type, PYTHON)
    assert isinstance(outcome, Unavailable), outcome
    assert "grammar reports" in outcome.reason and "line" in outcome.reason


@pytest.mark.parametrize(
    ("media_type", "other"),
    [
        ("text/x-go", b'fn main() { println!("hi"); }\n'),
        ("text/x-rust", b"package main\n\nfunc main() {}\n"),
        ("text/x-java", b"package main\n\nfunc main() {}\n"),
        ("text/javascript", b"interface A { x: number }\nlet y: A = { x: 1 };\n"),
        ("text/x-typescript", b"const a = <div>{x}</div>;\n"),
    ],
)
def test_neighbouring_languages_refuse(media_type: str, other: bytes) -> None:
    outcome = project(media_type, other)
    assert isinstance(outcome, Unavailable) and "grammar reports" in outcome.reason
