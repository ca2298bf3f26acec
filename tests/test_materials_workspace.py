"""Workspace.read: the boundary every material passes (scope, kind, size, digest, media type)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lychd_core.digests import sha256_digest
from lychd_core.errors import (
    DigestMismatchError,
    MaterialError,
    MaterialNotFoundError,
    MaterialScopeError,
    MaterialTooLargeError,
    MediaTypeError,
    SpecialFileError,
)
from lychd_core.projection.materials import MaterialRef, Workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("def main():\n    pass\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    return workspace


def ref_for(root: Path, path: str, **fields: object) -> MaterialRef:
    return MaterialRef(path=path, digest=sha256_digest((root / path).read_bytes()), **fields)


def test_reads_verified_bytes_and_media_type(root: Path) -> None:
    resolved = Workspace(root).read(ref_for(root, "src/app.py"), 1000)
    assert resolved.path == "src/app.py" and resolved.data.startswith(b"def main")
    assert resolved.digest == sha256_digest(resolved.data)
    assert resolved.media.media_type == "text/x-python" and resolved.media.source == "extension"


def test_changed_file_refuses_never_projects_new_content(root: Path) -> None:
    ref = ref_for(root, "src/app.py")
    (root / "src" / "app.py").write_text("def changed(): pass\n")
    with pytest.raises(DigestMismatchError) as caught:
        Workspace(root).read(ref, 1000)
    assert "changed since it was referenced" in str(caught.value)


def test_missing_file(root: Path) -> None:
    with pytest.raises(MaterialNotFoundError):
        Workspace(root).read(MaterialRef(path="src/nope.py", digest=sha256_digest(b"")), 1000)


def test_symlink_out_of_the_root_refuses(root: Path) -> None:
    (root / "link.txt").symlink_to(root.parent / "secret.txt")
    with pytest.raises(MaterialScopeError) as caught:
        Workspace(root).read(MaterialRef(path="link.txt", digest=sha256_digest(b"outside\n")), 1000)
    assert "outside the workspace" in str(caught.value)


def test_symlinked_directory_out_of_the_root_refuses(root: Path) -> None:
    (root / "up").symlink_to(root.parent)
    with pytest.raises(MaterialScopeError):
        Workspace(root).read(MaterialRef(path="up/secret.txt", digest=sha256_digest(b"outside\n")), 1000)


def test_symlink_inside_the_root_is_followed(root: Path) -> None:
    (root / "alias.py").symlink_to(root / "src" / "app.py")
    resolved = Workspace(root).read(ref_for(root, "src/app.py").model_copy(update={"path": "alias.py"}), 1000)
    assert resolved.path == "alias.py" and resolved.data.startswith(b"def main")


def test_symlink_loop_refuses(root: Path) -> None:
    (root / "a").symlink_to(root / "b")
    (root / "b").symlink_to(root / "a")
    with pytest.raises(MaterialScopeError) as caught:
        Workspace(root).read(MaterialRef(path="a", digest=sha256_digest(b"")), 1000)
    assert "loop" in str(caught.value)


def test_fifo_refuses_without_blocking(root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(SpecialFileError) as caught:
        Workspace(root).read(MaterialRef(path="pipe", digest=sha256_digest(b"")), 1000)
    assert "special file" in str(caught.value)


def test_device_refuses(root: Path) -> None:
    device = root / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        device.symlink_to("/dev/null")  # unprivileged: the symlink leaves the root instead
        with pytest.raises(MaterialError):
            Workspace(root).read(MaterialRef(path="null", digest=sha256_digest(b"")), 1000)
        return
    with pytest.raises(SpecialFileError):
        Workspace(root).read(MaterialRef(path="null", digest=sha256_digest(b"")), 1000)


def test_directory_refuses(root: Path) -> None:
    with pytest.raises(SpecialFileError):
        Workspace(root).read(MaterialRef(path="src", digest=sha256_digest(b"")), 1000)


def test_size_is_checked_before_reading(root: Path) -> None:
    (root / "big.txt").write_bytes(b"x" * 5000)
    with pytest.raises(MaterialTooLargeError) as caught:
        Workspace(root).read(ref_for(root, "big.txt"), 4999)
    assert "5000 bytes, over the bound of 4999" in str(caught.value)


def test_binary_pinned_as_text_refuses(root: Path) -> None:
    (root / "blob.py").write_bytes(b"\x00\x01\x02\x03 not python")
    ref = ref_for(root, "blob.py", media_type="text/x-python")
    with pytest.raises(MediaTypeError):
        Workspace(root).read(ref, 1000)
    unpinned = Workspace(root).read(ref_for(root, "blob.py"), 1000)
    assert unpinned.media.is_binary and unpinned.media.media_type == "application/octet-stream"


def test_for_current_pins_the_current_digest(root: Path) -> None:
    workspace = Workspace(root)
    ref = MaterialRef.for_current(workspace, "src/app.py", required=False, lineage=("cli",))
    assert ref.digest == sha256_digest((root / "src" / "app.py").read_bytes())
    assert ref.required is False and ref.lineage == ("cli",)
    with pytest.raises(MaterialScopeError):
        MaterialRef.for_current(workspace, "../secret.txt")


def test_relative_maps_filesystem_paths_into_the_workspace(root: Path) -> None:
    workspace = Workspace(root)
    assert workspace.relative(root / "src" / "app.py") == "src/app.py"
    assert workspace.relative(root) == "."
    with pytest.raises(MaterialScopeError):
        workspace.relative(root.parent / "secret.txt")


def test_workspace_root_must_exist(tmp_path: Path) -> None:
    with pytest.raises(MaterialNotFoundError):
        Workspace(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(SpecialFileError):
        Workspace(tmp_path / "file")


def test_artifacts_by_digest(tmp_path: Path, root: Path) -> None:
    workspace = Workspace(root, artifacts=tmp_path / "artifacts")
    digest = workspace.put_artifact(b'{"a": 1}\n')
    resolved = workspace.read(MaterialRef(digest=digest, media_type="application/json"), 100)
    assert resolved.path == f"artifact:{digest}" and resolved.data == b'{"a": 1}\n'
    assert resolved.media.media_type == "application/json"
    with pytest.raises(MaterialNotFoundError):
        workspace.read(MaterialRef(digest=sha256_digest(b"never stored")), 100)
    with pytest.raises(MaterialNotFoundError):
        Workspace(root).read(MaterialRef(digest=digest), 100)
    with pytest.raises(MaterialError):
        Workspace(root).put_artifact(b"x")
