"""StatProbe.unchanged (the warm path's loop) agrees with the probe it inlines, file by file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lychd_core.projection.fingerprints import StatProbe

NAMES = ["a.ts", "sub/b.ts", "sub/deeper/c.ts", "d.ts"]


def tree(root: Path) -> list[list[int]]:
    for name in NAMES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name * 3)
    probe = StatProbe(str(root))
    stamps = [probe(name, 1_000) for name in NAMES]
    assert all(stamp is not None for stamp in stamps)
    return [list(stamp) for stamp in stamps if stamp is not None]


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, len(NAMES) - 1), st.integers(0, 4), st.integers(-2, 2), st.integers(0, 40))
def test_unchanged_is_every_probe_matching_its_stamp(
    tmp_path_factory: pytest.TempPathFactory, which: int, field: int, delta: int, bound: int
) -> None:
    root = tmp_path_factory.mktemp("probe")
    stamps = tree(root)
    stamps[which][field] += delta
    bounds = [1_000] * len(NAMES)
    bounds[which] = bound
    probe = StatProbe(str(root))
    expected = all(probe(name, limit) == tuple(stamp) for name, stamp, limit in zip(NAMES, stamps, bounds, strict=True))
    assert StatProbe(str(root)).unchanged(NAMES, stamps, bounds) == expected
    assert expected == (delta == 0 and bound >= len(NAMES[which]) * 3)


def test_a_missing_file_a_symlink_a_folder_or_an_escaping_folder_is_changed(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    stamps = tree(root)
    bounds = [1_000] * len(NAMES)
    assert StatProbe(str(root)).unchanged(NAMES, stamps, bounds)
    (root / "d.ts").unlink()
    assert not StatProbe(str(root)).unchanged(NAMES, stamps, bounds)
    os.symlink(root / "a.ts", root / "d.ts")
    assert not StatProbe(str(root)).unchanged(NAMES, stamps, bounds)
    (root / "d.ts").unlink()
    (root / "d.ts").mkdir()
    assert not StatProbe(str(root)).unchanged(NAMES, stamps, bounds)
    (root / "d.ts").rmdir()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / "link").symlink_to(outside, target_is_directory=True)
    (outside / "e.ts").write_text("e")
    assert not StatProbe(str(root)).unchanged(["link/e.ts"], [stamps[0]], [1_000])


def test_a_stamp_that_is_not_five_numbers_raises_value_error(tmp_path: Path) -> None:
    stamps = tree(tmp_path)
    with pytest.raises(ValueError):
        StatProbe(str(tmp_path)).unchanged(NAMES[:1], [stamps[0][:4]], [1_000])
