"""Shared console output: rich for people, canonical-ish JSON for machines."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from lychd_core.errors import OutputFileError

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def emit_json(value: Any) -> None:
    """Print ``value`` as indented, key-sorted JSON on stdout."""
    sys.stdout.write(json_text(value))


def json_text(value: Any) -> str:
    """``value`` as indented, key-sorted JSON text, ending in a newline."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def add_json_flag(parser: Any) -> None:
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of tables")


def plain(text: str) -> str:
    """Escape rich markup in text that comes from data."""
    return escape(text)


def write_output(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` atomically: a temporary file beside it, flushed, then renamed over it.

    A regular file (or a symlink's target name) is replaced; a directory, FIFO, device or
    socket never is. On any failure the temporary file is removed and ``target`` is as it was.
    """
    try:
        info = target.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise OutputFileError(f"--output {target}: cannot inspect it: {exc.strerror or exc}") from None
    if info is not None and not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise OutputFileError(f"--output {target} is {kind}; name a file to write (its folder must exist)")
    folder = target.parent
    if not folder.is_dir():
        raise OutputFileError(f"--output {target}: the folder {folder} does not exist; create it first")
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputFileError(f"--output {target}: cannot write in {folder}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode) if info is not None and stat.S_ISREG(info.st_mode) else _mode())
        os.replace(temporary, target)
    except BaseException as exc:  # Ctrl-C too: never leave the temporary file behind
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise OutputFileError(f"--output {target}: cannot write: {exc.strerror or exc}") from None
        raise


def _mode() -> int:
    """What a new file gets under the process umask (read once; the command is single-threaded here)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
