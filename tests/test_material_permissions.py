"""A file inside a folder this user may not read is a typed refusal naming the path, never an internal error.

The commands run as a process the file modes bind (root without its override
capabilities, see ``tests/test_read_only_stores.py``), as ``nobody`` would.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lychd_core.errors import MaterialPermissionError
from lychd_core.projection.materials import Workspace
from tests.support.hostile import workspace, write
from tests.test_read_only_stores import lychd, run_restricted

CASES = {"closed/key.py": (0o000, 0o644), "unsearchable/key.py": (0o444, 0o644), "locked/key.py": (0o755, 0o000)}


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Path]:
    root = workspace(tmp_path / "ws")
    for name, (folder_mode, file_mode) in CASES.items():
        (root / name).parent.mkdir()
        write(root / name, "TOKEN = 1\n")
        (root / name).chmod(file_mode)
        (root / name).parent.chmod(folder_mode)
    tmp_path.chmod(0o755)
    yield root
    for name in CASES:
        (root / name).parent.chmod(0o700)
        (root / name).chmod(0o600)


def test_project_and_assemble_name_the_unreadable_path(ws: Path) -> None:
    probe = run_restricted(["-c", f"open({str(ws / 'locked' / 'key.py')!r}).read()"])
    assert probe.code != 0 and "PermissionError" in probe.err, "the restriction must bind"
    w = ["--workspace", str(ws)]
    for name, (folder_mode, _) in CASES.items():
        blocker = "may not read it" if folder_mode == 0o755 else f"folder {ws / name.split('/')[0]} cannot be read"
        commands = [["assemble", *w, "--query", "q", "--material", name]]
        commands += [["project", *w, name]] if name.startswith("closed") else []  # the same path check
        for args in commands:
            outcome = lychd(args)  # held to the contract: exit 0-2, no traceback, no internal error
            shown = " ".join((outcome.out + outcome.err).split()).replace("│", "")
            assert outcome.code in (0, 1) and "MaterialPermissionError" in shown, (args, shown)
            assert name in shown.replace(" ", "") and blocker.replace(" ", "") in shown.replace(" ", ""), shown


def test_the_refusal_is_a_permission_error_in_the_library(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(self: Path) -> bool:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "is_symlink", denied)
    with pytest.raises(MaterialPermissionError, match=r"src/app\.py: permission denied") as caught:
        Workspace(ws).argument("src/app.py")
    assert isinstance(caught.value, PermissionError)
