"""A binary file is named and called binary (issue 23): never ``no projection rule for media
type 'application/octet-stream' (rules exist for ...)``, and a ``.py`` holding NULs is
binary (``application/octet-stream``), not libmagic's guess (``application/zlib``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lychd_core.cli import main
from lychd_core.errors import BinaryMaterialError, MediaTypeError
from lychd_core.mediatypes import OCTET_STREAM
from lychd_core.projection.media import detect_media_type

NUL_PYTHON = b"x = 1\n\x00\x00\n"


def test_a_python_file_holding_nuls_is_binary_not_zlib() -> None:
    decision = detect_media_type("src/nul.py", NUL_PYTHON)
    assert decision.is_binary and decision.media_type == OCTET_STREAM


def project(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, str]]:
    assert main(["project", "--workspace", str(root), "--json", "--no-cache", "."]) == 0
    return {item["path"]: item for item in json.loads(capsys.readouterr().out)["items"]}


def test_binary_files_are_named_and_called_binary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)))
    (tmp_path / "nul.py").write_bytes(NUL_PYTHON)
    (tmp_path / "ok.py").write_text("x = 1\n")
    items = project(tmp_path, capsys)
    assert items["ok.py"]["status"] == "projected"
    for name in ("blob.bin", "nul.py"):
        reason = items[name]["reason"]
        assert reason.startswith(f"BinaryMaterialError: {name} is a binary file"), reason
        assert "rules exist for" not in reason and "zlib" not in items[name]["media_type"]
    assert "its name says text/x-python" in items["nul.py"]["reason"]


def test_a_required_binary_file_refuses_with_its_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "nul.py").write_bytes(NUL_PYTHON)
    assert main(["assemble", "--workspace", str(tmp_path), "--material", "nul.py", "--query", "q"]) == 1
    err = capsys.readouterr().err
    assert "BinaryMaterialError: nul.py is a binary file" in err and "rules exist for" not in err


def test_the_binary_refusal_is_still_a_media_type_error() -> None:
    assert issubclass(BinaryMaterialError, MediaTypeError)
