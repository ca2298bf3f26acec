"""Bad input is an explicit unavailable outcome with a reason: never a crash, never full text."""

from __future__ import annotations

import os

import pytest
from lychd_structure_python import PROFILE, StructurePythonOptions, StructurePythonProfile

from lychd_core.digests import sha256_digest
from lychd_core.families import Projected, SourceMaterial, Unavailable


def project(data: bytes, profile: StructurePythonProfile = PROFILE, max_bytes: int = 10_000_000) -> object:
    material = SourceMaterial("bad.py", "text/x-python", data, sha256_digest(data), max_bytes, 1_000_000)
    return profile.project(material, StructurePythonOptions())


def reason(data: bytes, profile: StructurePythonProfile = PROFILE) -> str:
    result = project(data, profile)
    assert isinstance(result, Unavailable), result
    assert data.decode("latin-1")[:40] not in result.reason or len(data) < 12
    return result.reason


def test_python2_syntax_is_unavailable() -> None:
    assert "cannot parse" in reason(b'print "hello"\n')
    assert "cannot parse" in reason(b"exec 'x = 1'\nraise E, 'v'\n")


def test_null_bytes_and_binary_refuse() -> None:
    assert "null byte" in reason(b"x = 1\x00\n")
    assert "null byte" in reason(bytes(range(256)) * 4)


def test_invalid_utf8_refuses() -> None:
    assert "not valid UTF-8" in reason(b's = "caf\xe9"\n')


def test_unknown_encoding_declaration_refuses() -> None:
    assert "encoding" in reason(b"# -*- coding: no-such-codec -*-\nx = 1\n")


def test_declared_latin1_is_honoured() -> None:
    result = project(b'# -*- coding: latin-1 -*-\ns = "caf\xe9"\ndef f(): pass\n')
    assert isinstance(result, Projected) and "def f(): ...  # L3" in result.text


def test_bom_is_removed_and_lines_are_right() -> None:
    result = project(b"\xef\xbb\xbfimport os\n\ndef f():\n    pass\n")
    assert isinstance(result, Projected)
    assert result.text.splitlines()[0] == "import os  # L1" and "def f(): ...  # L3" in result.text


@pytest.mark.parametrize("newline", [b"\r\n", b"\r"])
def test_crlf_and_cr_lines_are_counted_like_python(newline: bytes) -> None:
    source = newline.join([b'"""Doc."""', b"import os", b"", b"class A:", b"    def m(self): pass", b""])
    result = project(source)
    assert isinstance(result, Projected)
    assert "class A:  # L4" in result.text and "    def m(self): ...  # L5" in result.text


def test_over_the_byte_bound_is_not_parsed() -> None:
    result = project(b"x = 1\n" * 100, max_bytes=50)
    assert isinstance(result, Unavailable) and "over the bound of 50" in result.reason


def test_deeply_nested_input_crashes_only_the_worker() -> None:
    nested = b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n"
    assert "crashed" in reason(nested) or "nested too deeply" in reason(nested)
    after = project(b"def still_works(): pass\n")
    assert isinstance(after, Projected) and "still_works" in after.text


def test_deep_lists_and_lambdas_are_explained() -> None:
    for source in (b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", b"f = " + b"lambda: " * 30000 + b"1\n"):
        result = project(source)
        assert isinstance(result, Unavailable) and result.reason


def test_a_parse_over_the_time_limit_is_stopped() -> None:
    slow = StructurePythonProfile(time_limit=0.5)
    try:
        assert "did not finish within 0.5 s" in reason(b"x = " + b"-" * 20000 + b"1\n", slow)
        after = project(b"def ok(): pass\n", slow)
        assert isinstance(after, Projected)
    finally:
        slow.close()


def test_huge_generated_module_projects() -> None:
    source = b"".join(b"def f%d(a, b=%d):\n    return a + b\n\n" % (i, i) for i in range(3000))
    result = project(source)
    assert isinstance(result, Projected)
    assert result.text.count("\n") == 3000 and "def f2999(a, b=2999): ...  # L8998" in result.text


def test_a_forked_child_never_reuses_the_parents_worker() -> None:
    project(b"x = 1\n")
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        result = project(b"def child(): pass\n")
        os._exit(0 if isinstance(result, Projected) and "child" in result.text else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert isinstance(project(b"def parent(): pass\n"), Projected)
