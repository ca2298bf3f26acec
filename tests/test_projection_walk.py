""".gitignore-aware walking for ``lychd project``."""

from __future__ import annotations

import json
import os
import pwd
import tempfile
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


def _walk_as(account: pwd.struct_passwd | None, root: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """``walk_files(root, root)``, in a forked child that drops to ``account`` first when one is given:
    root reads every directory, so only an unprivileged process meets one it cannot read."""
    if account is None:
        result = walk_files(root, root)
        return result.files, result.unreadable
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # the child: drop privileges, walk, report, and leave without running pytest's exit code
        code = 1
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)
            found = walk_files(root, root)
            os.write(write_end, json.dumps([os.geteuid(), found.files, found.unreadable]).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        reported = pipe.read()
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the unprivileged walk failed"
    euid, files, unreadable = json.loads(reported)
    assert euid == account.pw_uid != 0  # the walk really ran unprivileged
    return files, [tuple(item) for item in unreadable]


def test_unreadable_directories_are_reported() -> None:
    account = pwd.getpwnam("nobody") if os.geteuid() == 0 else None
    with tempfile.TemporaryDirectory() as scratch:  # not under pytest's root-only tmp_path: nobody must reach it
        root = Path(scratch)
        root.chmod(0o755)
        make(root, {"locked/a.py": "", "b.py": ""})
        (root / "locked").chmod(0)
        try:
            files, unreadable = _walk_as(account, root)
        finally:
            (root / "locked").chmod(0o755)
    assert files == ["b.py"]
    assert [where for where, _ in unreadable] == ["locked"] and "ermission denied" in unreadable[0][1]
