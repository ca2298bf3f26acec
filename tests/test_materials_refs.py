"""MaterialRef: an explicit, attributed, digest-bound reference with typed refusals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lychd_core.digests import sha256_digest
from lychd_core.errors import LychdError, MaterialError, MaterialRefError, MaterialScopeError
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.projection.materials import MaterialRef, check_relative_path

DIGEST = sha256_digest(b"x")


def test_defaults_are_required_and_restricted_unknown() -> None:
    ref = MaterialRef(path="src/app.py", digest=DIGEST)
    assert ref.required is True and ref.max_bytes is None and ref.max_chars is None
    assert ref.label == PrivatizationLabel.restricted_unknown()
    assert ref.label.privacy_class is PrivacyClass.RESTRICTED
    assert ref.lineage == () and ref.profile is None and ref.media_type is None
    assert ref.source == "src/app.py"


def test_artifact_reference_by_digest() -> None:
    ref = MaterialRef(digest=DIGEST)
    assert ref.path is None and ref.source == f"artifact:{DIGEST}"


def test_reference_is_frozen_and_carries_no_bytes() -> None:
    ref = MaterialRef(path="a.txt", digest=DIGEST)
    with pytest.raises(ValueError):
        ref.path = "b.txt"  # type: ignore[misc]
    assert set(MaterialRef.model_fields) == {
        "path", "digest", "required", "max_bytes", "max_chars", "label", "lineage", "profile", "media_type"
    }  # fmt: skip


@pytest.mark.parametrize("path", ["../x", "a/../../x", "/etc/passwd", "C:/x", "a/.."])
def test_escaping_paths_are_scope_errors(path: str) -> None:
    with pytest.raises(MaterialScopeError):
        MaterialRef(path=path, digest=DIGEST)


@pytest.mark.parametrize("path", ["", "a//b", "./a", "a/", "a\\b", "a\x00b", "a/./b"])
def test_non_canonical_paths_are_refused(path: str) -> None:
    with pytest.raises(MaterialRefError):
        MaterialRef(path=path, digest=DIGEST)


@pytest.mark.parametrize(
    "fields",
    [
        {"digest": "sha256:abc"},
        {"digest": "md5:" + "0" * 32},
        {"digest": DIGEST, "profile": "structure.python"},
        {"digest": DIGEST, "profile": "structure.python@0"},
        {"digest": DIGEST, "profile": "structure.python@latest"},
        {"digest": DIGEST, "media_type": "not a media type"},
        {"digest": DIGEST, "max_bytes": 0},
        {"digest": DIGEST, "max_chars": -1},
        {"digest": DIGEST, "surprise": 1},
    ],
)
def test_malformed_references_are_typed_errors(fields: dict[str, object]) -> None:
    with pytest.raises(MaterialRefError) as caught:
        MaterialRef(path="a.py", **fields)
    assert isinstance(caught.value, LychdError) and isinstance(caught.value, MaterialError)


def test_pins_and_media_types_are_normalized() -> None:
    ref = MaterialRef(path="a.py", digest=DIGEST, profile="structure.python@1", media_type="Text/X-Script.Python")
    assert ref.profile == "structure.python@1" and ref.media_type == "text/x-python"


def test_from_json_validates_like_the_constructor() -> None:
    ref = MaterialRef.from_json({"path": "a.py", "digest": DIGEST, "required": False, "lineage": ["run:1"]})
    assert ref.required is False and ref.lineage == ("run:1",)
    with pytest.raises(MaterialScopeError):
        MaterialRef.from_json({"path": "../a.py", "digest": DIGEST})
    with pytest.raises(MaterialRefError):
        MaterialRef.from_json({"path": "a.py"})


SEGMENT = st.text(st.characters(exclude_characters="/\\\x00", exclude_categories=["Cs"]), min_size=1, max_size=8)


@given(st.lists(SEGMENT, min_size=1, max_size=5), st.integers(0, 4))
def test_dotdot_anywhere_is_always_refused(segments: list[str], where: int) -> None:
    segments.insert(min(where, len(segments)), "..")
    with pytest.raises(MaterialScopeError):
        check_relative_path("/".join(segments))


PLAIN_SEGMENT = st.text(
    st.characters(exclude_characters="/\\\x00", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=8
)


@given(
    st.lists(PLAIN_SEGMENT.filter(lambda s: s not in (".", "..")), max_size=3),
    st.sampled_from(["\n", "\t", "\x1b", "\x7f", "\udcff"]),
)
def test_control_characters_and_undecodable_names_are_refused(segments: list[str], bad: str) -> None:
    with pytest.raises(MaterialRefError, match=r"control character|not valid UTF-8"):
        check_relative_path("/".join(["src", *segments]) + bad)


@given(
    st.lists(PLAIN_SEGMENT.filter(lambda s: s not in (".", "..") and not s[0:2].endswith(":")), min_size=1, max_size=5)
)
def test_canonical_relative_paths_are_accepted(segments: list[str]) -> None:
    path = "/".join(segments)
    if path[:2].endswith(":") or path[1:2] == ":":
        return
    assert check_relative_path(path) == tuple(segments)
