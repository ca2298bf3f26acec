"""The media cache's file name of a reference is its path's last component, as PurePosixPath gives it."""

from __future__ import annotations

from pathlib import PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from lychd_core.projection.batch import _name
from lychd_core.projection.materials import MaterialRef

COMPONENT = st.text(st.characters(blacklist_characters="/\\\x00", blacklist_categories=("Cs", "Cc")), min_size=1)
PATHS = st.lists(COMPONENT.filter(lambda part: part not in (".", "..")), min_size=1, max_size=4).map("/".join)


@given(PATHS)
def test_the_name_is_what_purepath_gives_for_every_canonical_path(path: str) -> None:
    ref = MaterialRef(path=path, digest="sha256:" + "0" * 64)
    assert _name(ref) == PurePosixPath(ref.path or "").name


def test_an_artifact_reference_has_no_name() -> None:
    ref = MaterialRef(path=None, digest="sha256:" + "0" * 64)
    assert _name(ref) == "" == PurePosixPath("").name
