"""Bounds before tree-sitter parses: total size, single-line size, and the address-space limit.

tree-sitter's memory grows with the source (about 110 bytes per byte with the outline), and
an allocation that fails under ``RLIMIT_AS`` killed the process by SIGSEGV. Each bound now
gives an explained ``Unavailable`` before any parse.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_structure_treesitter import PROFILES, StructureTreeSitterOptions, bounds

from lychd_core.digests import sha256_digest
from lychd_core.families import SourceMaterial, Unavailable

BY_MEDIA_TYPE = {media: profile for profile in PROFILES for media in profile.media_types}
UNIT = {
    "text/javascript": b"var a=function(b){return b+1};",
    "text/x-typescript": b"let a=(b:number):number=>b+1;",
    "text/x-tsx": b"const C=(p:{n:number})=><i>{p.n}</i>;",
    "text/x-go": b"func f(b int)int{return b+1};",
    "text/x-rust": b"fn f(b:i32)->i32{b+1}",
    "text/x-java": b"int m(int b){return b+1;}",
}


def project(media_type: str, data: bytes) -> object:
    source = SourceMaterial("bounded", media_type, data, sha256_digest(data), 100_000_000, 96_000)
    return BY_MEDIA_TYPE[media_type].project(source, StructureTreeSitterOptions())


@pytest.mark.parametrize("media_type", sorted(UNIT))
def test_one_line_over_the_line_bound_is_unavailable_before_parsing(media_type: str) -> None:
    unit = UNIT[media_type]
    data = b"// header\n" + unit * (bounds.MAX_LINE_BYTES // len(unit) + 1) + b"\n"
    outcome = project(media_type, data)
    assert isinstance(outcome, Unavailable), outcome
    assert f"line 2 has {len(data) - 11} bytes, over the bound of {bounds.MAX_LINE_BYTES}" in outcome.reason


def test_a_source_over_the_parse_bound_is_unavailable_whatever_max_bytes_allows() -> None:
    line = UNIT["text/javascript"] + b"\n"
    data = line * (bounds.MAX_PARSE_BYTES // len(line) + 1)
    outcome = project("text/javascript", data)
    assert isinstance(outcome, Unavailable), outcome
    assert f"over the bound of {bounds.MAX_PARSE_BYTES} tree-sitter parses" in outcome.reason


DRIVER = textwrap.dedent(
    """
    import os, resource, sys
    from lychd_structure_treesitter import PROFILES, StructureTreeSitterOptions
    from lychd_core.digests import sha256_digest
    from lychd_core.families import SourceMaterial
    data = b"".join(b"var a%d=function(b){return b+1};\\n" % i for i in range(60_000))
    profile = next(p for p in PROFILES if "text/javascript" in p.media_types)
    mapped = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (mapped + (60 << 20), resource.RLIM_INFINITY))
    source = SourceMaterial("x", "text/javascript", data, sha256_digest(data), 10**8, 96_000)
    print(profile.project(source, StructureTreeSitterOptions()).reason)
    """
)


def test_under_an_address_space_limit_the_outcome_is_explained_not_a_segfault() -> None:
    done = subprocess.run([sys.executable, "-c", DRIVER], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"exit {done.returncode} (SIGSEGV is -11): {done.stderr[-500:]}"
    assert "the address-space limit (RLIMIT_AS) leaves" in done.stdout and "raise the limit" in done.stdout


lines = st.lists(st.integers(0, 40), min_size=1, max_size=20)


@settings(max_examples=60, deadline=None)
@given(lines, st.integers(1, 40), st.integers(1, 400))
def test_the_bounds_refuse_exactly_what_exceeds_them(lengths: list[int], max_line: int, max_total: int) -> None:
    data = b"\n".join(b"x" * n for n in lengths)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bounds, "MAX_LINE_BYTES", max_line)
        patch.setattr(bounds, "MAX_PARSE_BYTES", max_total)
        patch.setattr(bounds, "address_space_headroom", lambda: None)
        problem = bounds.parse_bound_problem(data)
    if len(data) > max_total:
        assert problem is not None and "tree-sitter parses" in problem
    elif max(lengths) > max_line:
        assert problem is not None and f"line {lengths.index(max(lengths)) + 1} has {max(lengths)} bytes" in problem
    else:
        assert problem is None
