""".gitignore-aware walking for ``lychd project``."""

from __future__ import annotations

import os
from pathlib import Path

from lychd_core.projection.walk import walk_files


def make(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_gitignore_files_apply_with_git_precedence(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild/\n/top.txt\n",
            "a.py": "",
            "debug.log": "",
            "top.txt": "",
            "build/out.py": "",
            "pkg/top.txt": "",
            "pkg/.gitignore": "!keep.log\nsecret/\n",
            "pkg/keep.log": "",
            "pkg/drop.log": "",
            "pkg/secret/key.txt": "",
            "pkg/mod.py": "",
        },
    )
    found = walk_files(tmp_path, tmp_path).files
    assert found == [".gitignore", "a.py", "pkg/.gitignore", "pkg/keep.log", "pkg/mod.py", "pkg/top.txt"]


def test_ancestor_gitignores_apply_to_a_subdirectory_walk(tmp_path: Path) -> None:
    make(tmp_path, {".gitignore": "*.tmp\n", "sub/a.py": "", "sub/b.tmp": ""})
    assert walk_files(tmp_path / "sub", tmp_path).files == ["sub/a.py"]


def test_git_and_state_directories_are_never_walked(tmp_path: Path) -> None:
    make(tmp_path, {".git/config": "", ".lychd/projections.sqlite3": "", "src/a.py": ""})
    found = walk_files(tmp_path, tmp_path, skip=[tmp_path / ".lychd"]).files
    assert found == ["src/a.py"]


def test_symlinks_are_listed_not_followed(tmp_path: Path) -> None:
    make(tmp_path, {"real/a.py": ""})
    (tmp_path / "linkdir").symlink_to(tmp_path / "real")
    (tmp_path / "escape").symlink_to("/etc")
    os.mkfifo(tmp_path / "fifo")
    found = walk_files(tmp_path, tmp_path).files
    assert found == ["escape", "fifo", "linkdir", "real/a.py"]


def test_unreadable_directories_are_reported(tmp_path: Path) -> None:
    make(tmp_path, {"locked/a.py": "", "b.py": ""})
    (tmp_path / "locked").chmod(0)
    try:
        result = walk_files(tmp_path, tmp_path)
    finally:
        (tmp_path / "locked").chmod(0o755)
    if os.geteuid() == 0:  # root reads anything
        assert result.files == ["b.py", "locked/a.py"]
    else:
        assert result.files == ["b.py"] and result.unreadable[0][0] == "locked"
