"""Reading one input file the user named, without trusting what it is.

Only regular files (or standard input, named ``-``) are read: a FIFO is opened
without blocking and refused, a device or directory is refused before any read, and
every read stops one byte past its bound, so ``/dev/zero`` or a growing file cannot
exhaust memory or hang the command.
"""

from __future__ import annotations

import os
import stat
import sys

from lychd_core.errors import LychdError

STDIN = "-"
_OPEN = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _read_bounded(fd: int, max_bytes: int, shown: str, error: type[LychdError]) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size <= max_bytes:
        chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > max_bytes:
        raise error(f"{shown}: more than {max_bytes} bytes; lychd reads at most {max_bytes} bytes here")
    return b"".join(chunks)


def read_input_bytes(path: str, *, what: str, max_bytes: int, error: type[LychdError]) -> bytes:
    """The bytes of the regular file ``path`` (or of standard input for ``-``), at most ``max_bytes``."""
    shown = f"{what} {path!r}"
    if path == STDIN:
        try:
            return _read_bounded(sys.stdin.fileno(), max_bytes, f"{what} (standard input)", error)
        except (OSError, ValueError, AttributeError) as exc:
            raise error(f"{what}: cannot read standard input: {exc}") from None
    try:
        fd = os.open(path, _OPEN)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise error(f"{path}: cannot read {what}: {reason}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{shown}: is {_kind(info.st_mode)}; give a regular file (or '-' for standard input)")
        if info.st_size > max_bytes:
            raise error(f"{shown}: {info.st_size} bytes, over the bound of {max_bytes} bytes")
        return _read_bounded(fd, max_bytes, shown, error)
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_input_text(path: str, *, what: str, max_bytes: int, error: type[LychdError]) -> str:
    """:func:`read_input_bytes` decoded as strict UTF-8."""
    data = read_input_bytes(path, what=what, max_bytes=max_bytes, error=error)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path!r}: not UTF-8 (invalid byte at offset {exc.start}); re-encode it as UTF-8") from None
