"""Properties: the outcome depends only on bytes and options; declared names are outlined with their lines."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_structure_treesitter import PROFILES, StructureTreeSitterOptions

from lychd_core.digests import sha256_digest
from lychd_core.families import Projected, SourceMaterial, Unavailable

BY_MEDIA_TYPE = {media: profile for profile in PROFILES for media in profile.media_types}
NAME = st.from_regex(r"[a-z][a-z0-9]{2,8}", fullmatch=True).map(lambda s: "n" + s)
TEMPLATES = {
    "text/javascript": ("", "function {name}(a, b) {{\n  return a + b;\n}}\n"),
    "text/x-typescript": ("", "export function {name}(a: number): number {{\n  return a;\n}}\n"),
    "text/x-tsx": ("", "export const {name} = (p: {{ n: number }}) => <b>{{p.n}}</b>;\n"),
    "text/x-go": ("package p\n", "func {name}(a int) int {{\n\treturn a\n}}\n"),
    "text/x-rust": ("", "pub fn {name}(a: u32) -> u32 {{\n    a\n}}\n"),
    "text/x-java": ("", "class {name} {{\n  int get() {{ return 1; }}\n}}\n"),
}


def project(media_type: str, data: bytes, path: str = "a", **options: Any) -> Projected | Unavailable:
    source = SourceMaterial(path, media_type, data, sha256_digest(data), 2_000_000, 96_000)
    return BY_MEDIA_TYPE[media_type].project(source, StructureTreeSitterOptions(**options))


@settings(max_examples=40, deadline=None)
@given(media_type=st.sampled_from(sorted(TEMPLATES)), names=st.lists(NAME, min_size=1, max_size=6, unique=True))
def test_generated_declarations_are_outlined_with_their_lines(media_type: str, names: list[str]) -> None:
    header, template = TEMPLATES[media_type]
    text, lines = header, {}
    for name in names:
        lines[name] = text.count("\n") + 1
        text += template.format(name=name)
    outcome = project(media_type, text.encode())
    assert isinstance(outcome, Projected), outcome
    facts: Any = outcome.facts
    outlined = {f["name"]: f["line"] for f in facts["definitions"]}
    assert outlined == lines
    assert set(names) <= set(facts["symbols"]["defines"])
    assert outcome == project(media_type, text.encode(), path="elsewhere/b")  # never depends on the path


@settings(max_examples=60, deadline=None)
@given(media_type=st.sampled_from(sorted(TEMPLATES)), data=st.binary(max_size=300))
def test_any_bytes_give_a_bounded_explained_outcome(media_type: str, data: bytes) -> None:
    outcome = project(media_type, data)
    assert outcome == project(media_type, data)
    if isinstance(outcome, Unavailable):
        assert outcome.reason
    else:
        assert len(outcome.line_map) == len(outcome.text.splitlines())
        assert b"\x00" not in data


BODIES = {
    "text/javascript": 'function {name}(a, b) {{\n  const s = "{body}";\n  return s + a;\n}}\n',
    "text/x-typescript": 'export function {name}(a: number): string {{\n  const s = "{body}";\n  return s;\n}}\n',
    "text/x-tsx": 'export function {name}(p: {{ n: number }}) {{\n  const s = "{body}";\n  return <b>{{s}}</b>;\n}}\n',
    "text/x-go": 'func {name}(a int) string {{\n\ts := "{body}"\n\treturn s\n}}\n',
    "text/x-rust": 'pub fn {name}(a: u32) -> &\'static str {{\n    let s = "{body}";\n    s\n}}\n',
    "text/x-java": 'class {name} {{\n  String get() {{ String s = "{body}"; return s; }}\n}}\n',
}
"""Declarations whose bodies hold a string no outline may show: the text an outline must never copy."""
BODY = st.from_regex(r"[A-Za-z0-9 ]{4,40}", fullmatch=True).map(lambda s: "body-" + s)


@settings(max_examples=30, deadline=None)
@given(
    media_type=st.sampled_from(sorted(BODIES)),
    declarations=st.lists(st.tuples(NAME, BODY), min_size=1, max_size=5, unique_by=lambda pair: pair[0]),
)
def test_text_never_projects_verbatim(media_type: str, declarations: list[tuple[str, str]]) -> None:
    header = TEMPLATES[media_type][0]
    text = header + "".join(BODIES[media_type].format(name=name, body=body) for name, body in declarations)
    outcome = project(media_type, text.encode())
    assert isinstance(outcome, Projected) and outcome.text, outcome  # every case reaches the checks below
    assert "body-" not in outcome.text  # no body is copied
    assert all(name in outcome.text for name, _ in declarations)  # yet every declaration is outlined
    assert all("  // L" in line or line.strip() in {"}", ""} for line in outcome.text.splitlines())
