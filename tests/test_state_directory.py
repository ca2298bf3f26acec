"""The state directory (issue 23): walks never enter ``.lychd/`` or ``.git/``, and
``.lychd/`` is created with its own ``.gitignore`` (``*``) and ``CACHEDIR.TAG``."""

from __future__ import annotations

import json
from pathlib import Path

import pathspec
import pytest

from lychd_core.cli import main
from lychd_core.projection.walk import walk_files
from lychd_core.state.directory import CACHEDIR_SIGNATURE, is_cache_dir, prepare_state_dir


def workspace(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def greet():\n    return 'hi'\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out + err


def test_assemble_creates_a_marked_state_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = workspace(tmp_path)
    code, output = run(capsys, "assemble", "--workspace", str(root), "--material", "src", "--query", "greet")
    assert code == 0, output
    state = root / ".lychd"
    assert (state / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (state / "CACHEDIR.TAG").read_text().startswith(CACHEDIR_SIGNATURE)
    ignored = pathspec.GitIgnoreSpec.from_lines((state / ".gitignore").read_text().splitlines())
    assert all(ignored.match_file(p.name) for p in state.iterdir()), "git offers nothing in the state directory"


@pytest.mark.parametrize("command", ["assemble", "rank", "project"])
def test_walks_never_enter_the_state_directory_or_git(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = workspace(tmp_path)
    w = ("--workspace", str(root))
    # A first run fills .lychd (cache key, projections); the second must not see them.
    for _ in range(2):
        if command == "project":
            code, output = run(capsys, "project", *w, "--json", ".")
        else:
            code, output = run(capsys, command, *w, "--material", ".", "--query", "greet", "--json")
        assert code == 0, output
    assert (root / ".lychd" / "cache.key").exists()
    seen = output.replace("[tool.lychd]", "")  # the summary names where a config was looked for
    assert ".lychd" not in seen and "CACHEDIR" not in seen and ".git/" not in seen
    assert "src/app.py" in output


def test_a_directory_tagged_as_a_cache_is_never_walked(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    (root / "build-cache").mkdir()
    (root / "build-cache" / "blob.py").write_text("x = 1\n")
    (root / "state").mkdir()
    (root / "state" / "memory.sqlite3").write_bytes(b"SQLite format 3\x00")
    (root / "fake").mkdir()
    (root / "fake" / "CACHEDIR.TAG").write_text("not a signature\n")
    for tagged in ("build-cache", "state"):  # another tool's cache; a configured state_dir other than .lychd
        (root / tagged / "CACHEDIR.TAG").write_text(CACHEDIR_SIGNATURE + "\n")
    prepare_state_dir(root / "fresh")
    assert is_cache_dir(root / "state") and is_cache_dir(root / "fresh") and not is_cache_dir(root / "fake")
    assert walk_files(root, root).files == ["fake/CACHEDIR.TAG", "src/app.py"]
    assert (root / "fresh" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_an_existing_state_directory_is_left_alone(tmp_path: Path) -> None:
    state = tmp_path / ".lychd"
    state.mkdir()
    (state / ".gitignore").write_text("!keep.me\n")
    prepare_state_dir(state)
    assert sorted(p.name for p in state.iterdir()) == [".gitignore"]
    assert (state / ".gitignore").read_text() == "!keep.me\n"


def test_project_json_lists_no_state_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = workspace(tmp_path)
    for _ in range(2):
        code, output = run(capsys, "project", "--workspace", str(root), "--json", ".")
        assert code == 0, output
    paths = [item["path"] for item in json.loads(output)["items"]]
    assert paths == ["src/app.py"]
