"""The polyglot builder's eligibility rules on a synthetic Debian patch series (no network).

benchmarks/relevance/polyglot/make_cases.py turns upstream commits carried as quilt
patches into relevance cases; these tests run its series walk on a tiny made-up
package so each rule (upstream origin, 6 words, 1-4 existing source files, no file
added, tests ignored, earlier patches applied first) can be seen to hold.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load() -> ModuleType:
    path = ROOT / "benchmarks" / "relevance" / "polyglot" / "make_cases.py"
    spec = importlib.util.spec_from_file_location("polyglot_make_cases", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


mc = load()

GO_FILE = "package pkg\n\nfunc Parse(s string) string {\n\treturn s\n}\n"


def diff(path: str, old: str, new: str, *, create: bool = False) -> str:
    a = "/dev/null" if create else f"a/{path}"
    if create:
        return f"--- {a}\n+++ b/{path}\n@@ -0,0 +1,1 @@\n+{new}\n"
    return f"--- {a}\n+++ b/{path}\n@@ -1,1 +1,1 @@\n-{old}\n+{new}\n"


def fmt_patch(subject: str, body: str, origin: str, diffs: str) -> str:
    return (
        "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
        "From: A Developer <dev@example.invalid>\n"
        "Date: Mon, 1 Jan 2024 00:00:00 +0000\n"
        f"Subject: [PATCH] {subject}\n\n{body}\n\nOrigin: {origin}\nSigned-off-by: A Developer\n---\n"
        f" pkg/parse.go | 2 +-\n\n{diffs}"
    )


SERIES = {
    "0001-debian-build.patch": (
        "Description: Adjust the import path for the Debian build of this package\n"
        "Forwarded: not-needed\n---\n" + diff("pkg/parse.go", "package pkg", "package pkg // debian")
    ),
    "0002-quoted.patch": fmt_patch(
        "parse: keep the spaces inside quoted names",
        "Quoted names lost their inner spaces when split.",
        "upstream, https://example.invalid/pkg/commit/abc123",
        diff("pkg/parse.go", "\treturn s", '\treturn s + ""')
        + diff("pkg/parse_test.go", "package pkg", "package pkg // test"),
    ),
    "0003-new-file.patch": fmt_patch(
        "add a helper for the parser in a new file",
        "",
        "upstream, https://example.invalid/pkg/commit/def",
        diff("pkg/helper.go", "", "package pkg", create=True),
    ),
    "0004-short.patch": fmt_patch(
        "fix typo",
        "",
        "upstream",
        diff("pkg/parse.go", "func Parse(s string) string {", "func Parse(s string) string {}"),
    ),
    "0005-tests-only.patch": (
        "Description: Skip a test that needs the network in the build\n"
        " It is run upstream.\nOrigin: backport, https://example.invalid/pkg/pull/7\n---\n"
        + diff("pkg/parse_test.go", "package pkg // test", "package pkg // test2")
    ),
    "0006-again.patch": (
        "Description: Return the name unchanged when it has no quotes at all\n"
        "Origin: https://example.invalid/pkg/commit/0a1b\n---\n" + diff("pkg/parse.go", '\treturn s + ""', "\treturn s")
    ),
}


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(mc, "MIN_SOURCE_BYTES", 0)
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "parse.go").write_text(GO_FILE)
    (src / "pkg" / "parse_test.go").write_text("package pkg\n")
    (src / "vendor" / "x").mkdir(parents=True)
    (src / "vendor" / "x" / "x.go").write_text("package x\n")
    patches = src / "debian" / "patches"
    patches.mkdir(parents=True)
    for name, text in SERIES.items():
        (patches / name).write_text(text)
    (patches / "series").write_text("# quilt order\n" + "\n".join(SERIES) + "\n")
    return src


def test_only_upstream_patches_of_existing_source_files_become_cases(package: Path, tmp_path: Path) -> None:
    log: list[str] = []
    cases = mc.walk_series(package, tmp_path / "work", "golang-example-pkg", "1.0-1+deb12u1", log)
    assert [c["patch"] for c in cases] == ["0002-quoted.patch", "0006-again.patch"]
    assert all(c["gold"] == ["pkg/parse.go"] for c in cases)  # the test file is ignored
    reasons = {line.split(": ", 1)[0].rsplit(" ", 1)[1]: line.split(": ", 1)[1] for line in log}
    assert reasons["0001-debian-build.patch"] == "origin not upstream"
    assert reasons["0003-new-file.patch"] == "adds, deletes or renames a source file"
    assert reasons["0004-short.patch"] == "message under 6 words"
    assert reasons["0005-tests-only.patch"] == "no source file of the language"
    first, second = cases
    subject, body = "parse: keep the spaces inside quoted names", "Quoted names lost their inner spaces when split."
    assert first["query"] == f"{subject}\n\n{body}"
    assert second["query"] == "Return the name unchanged when it has no quotes at all"
    # each tree is the upstream files with the earlier patches applied (0001, 0002, ...)
    assert first["_files"]["pkg/parse.go"].decode().startswith("package pkg // debian\n")
    assert 'return s + ""' not in first["_files"]["pkg/parse.go"].decode()
    assert 'return s + ""' in second["_files"]["pkg/parse.go"].decode()
    assert sorted(first["_files"]) == ["pkg/parse.go"]  # no tests, nothing vendored


def test_more_than_four_source_files_is_not_a_case() -> None:
    diffs = "".join(diff(f"pkg/f{i}.go", "a", "b") for i in range(5))
    patch = mc.parse_patch("big.patch", fmt_patch("change five files of the parser at once", "", "upstream", diffs))
    existing = {f"pkg/f{i}.go" for i in range(5)}
    assert mc.eligible(patch, "go", existing) == (None, "more than 4 source files")
    assert mc.eligible(patch, "go", existing - {"pkg/f4.go"}) == (None, "modifies a file not in the tree")


@pytest.mark.parametrize(
    ("name", "lang"),
    [
        ("golang-github-x-y", "go"),
        ("rust-serde", "rust"),
        ("node-undici", "js"),
        ("libfoo-java", "java"),
        ("tar", None),
    ],
)
def test_language_is_read_from_the_package_name(name: str, lang: str | None) -> None:
    assert mc.lang_of(name) == lang


def test_only_permissive_copyright_counts(tmp_path: Path) -> None:
    def copyright_with(license_name: str) -> Path:
        debian = tmp_path / license_name.replace(" ", "_") / "debian"
        debian.mkdir(parents=True)
        (debian / "copyright").write_text(
            f"Files: *\nCopyright: someone\nLicense: {license_name}\n\nFiles: debian/*\nLicense: GPL-2+\n"
        )
        return debian

    assert mc.permissive(copyright_with("Expat"))
    assert mc.permissive(copyright_with("Apache-2.0 or MIT"))
    assert not mc.permissive(copyright_with("LGPL-2.1+"))
    assert not mc.permissive(copyright_with("MPL-2.0"))
