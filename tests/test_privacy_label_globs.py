"""``[[labels]]`` globs: linear-time matching, the old answers kept, unbounded patterns refused."""

from __future__ import annotations

import re
from pathlib import Path
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.cli import main
from lychd_core.config import default_config, parse_config
from lychd_core.errors import ConfigError
from lychd_core.privacy import LabelRule, compile_glob, label_for
from lychd_core.privacy.globs import MAX_GLOB_CHARS, MAX_GLOB_WILDCARDS
from lychd_core.privacy.settings import LabelRule as SettingsRule

DIGEST = "sha256:" + "0" * 64
PATHOLOGICAL = ["*a" * runs + "*b" for runs in (3, 4, 5, 8, MAX_GLOB_WILDCARDS - 1)]


def _old_translate(pattern: str) -> str:
    """The backtracking translation this module replaced (the reference for its answers)."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] in "*?":
            out.append("[^/]*" if pattern[i] == "*" else "[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def _old_regex(pattern: str) -> str:
    anchored, body = pattern.startswith("/"), pattern.strip("/")
    prefix = "" if anchored or "/" in body else "(?:[^/]+/)*"
    return f"^{prefix}{_old_translate(body)}(?:/.*)?$"


def reference_match(pattern: str, path: str) -> bool:
    """Old semantics, with git's rule that ``**`` inside a name is a ``*``."""
    names = [name if name == "**" else re.sub(r"\*+", "*", name) for name in pattern.split("/")]
    return re.match(_old_regex("/".join(names)), path, re.DOTALL) is not None


def _unbounded_repeats(tree: Any, protected: bool = False) -> list[str]:
    """Unbounded repeats in a parsed regex that are neither possessive nor inside an atomic group."""
    found: list[str] = []
    for op, arg in tree:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            _low, high, body = arg
            if high is sre_parse.MAXREPEAT and not protected:
                found.append(name)
            found += _unbounded_repeats(body, protected)
        elif name == "POSSESSIVE_REPEAT":
            found += _unbounded_repeats(arg[2], True)
        elif name == "ATOMIC_GROUP":
            found += _unbounded_repeats(arg, True)
        elif name == "SUBPATTERN":
            found += _unbounded_repeats(arg[-1], protected)
        elif name == "BRANCH":
            for branch in arg[1]:
                found += _unbounded_repeats(branch, protected)
    return found


@pytest.mark.parametrize("pattern", [*PATHOLOGICAL, "**/a*b*c/**/d*e", "/x/**", "docs", "src/**/*.py", "?*?*?"])
def test_no_wildcard_can_backtrack(pattern: str) -> None:
    """Every unbounded repeat is committed (atomic or possessive): each wildcard tries each position once."""
    assert _unbounded_repeats(sre_parse.parse(compile_glob(pattern).regex.pattern)) == []
    old = sre_parse.parse(_old_regex(pattern))
    assert _unbounded_repeats(old), "the old translation backtracked (the finding)"


@pytest.mark.parametrize("pattern", PATHOLOGICAL)
def test_patterns_that_hung_assemble_now_answer(pattern: str) -> None:
    rules = [LabelRule(path=pattern, privacy_class="public")]
    long_path = "/".join(["a" * 200] * 8)  # 5 runs of '*' over a 200-character name never finished before
    assert label_for(rules, long_path, DIGEST).lineage_known is False
    assert label_for(rules, "x/" + "a" * 200 + "b", DIGEST).lineage_known is True


names = st.text(alphabet="ab", min_size=1, max_size=4)
paths = st.lists(names, min_size=1, max_size=5).map("/".join)
glob_names = st.text(alphabet="ab*?", min_size=1, max_size=5) | st.just("**")
globs = st.tuples(st.booleans(), st.lists(glob_names, min_size=1, max_size=4)).map(
    lambda parts: ("/" if parts[0] else "") + "/".join(parts[1])
)


@settings(max_examples=400, deadline=None)
@given(globs, paths)
def test_answers_agree_with_the_reference_translation(pattern: str, path: str) -> None:
    assert compile_glob(pattern).match(path) is reference_match(pattern, path)


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("*a" * (MAX_GLOB_WILDCARDS + 1), "runs of '\\*'"),
        ("a" * (MAX_GLOB_CHARS + 1), "characters"),
    ],
)
def test_unbounded_patterns_are_refused_at_load_naming_the_rule(pattern: str, why: str) -> None:
    data = default_config().model_dump(mode="json", exclude_none=True)
    data["labels"] = [{"path": "docs/**", "privacy_class": "public"}, {"path": pattern, "privacy_class": "public"}]
    with pytest.raises(ConfigError, match=rf"labels\[1\]\.path.*{why}"):
        parse_config(data)
    with pytest.raises(ValueError, match=why):
        SettingsRule(path=pattern, privacy_class="public")


def test_config_validate_refuses_an_unbounded_label_glob(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "lychd.toml"
    text = (Path(__file__).resolve().parents[1] / "profiles" / "default.toml").read_text(encoding="utf-8")
    stars = "*a" * (MAX_GLOB_WILDCARDS + 1)
    config.write_text(text + f'\n[[labels]]\npath = "{stars}"\nprivacy_class = "public"\n', encoding="utf-8")
    assert main(["config", "validate", str(config)]) == 1
    err = capsys.readouterr().err
    assert "ConfigError" in err and ".path" in err and "runs of '*'" in err
