"""Where store files live: inside the state directory unless the user chose an absolute path."""

from __future__ import annotations

from pathlib import Path

from lychd_core.errors import ConfigError

SQLITE_HEADER = b"SQLite format 3\x00"
APPLICATION_ID_OFFSET = 68  # big-endian 32-bit application_id in the SQLite header


def store_file(state_dir: Path, path: str | None, what: str) -> Path:
    """``path`` resolved against ``state_dir``; a relative path that leaves it (``..``, symlinks) is refused."""
    if path is None:
        raise ConfigError(f"stores: {what} is not set for an SQLite store; name a file in the state directory")
    given = Path(path)
    if given.is_absolute():
        return given.resolve()
    if ".." in given.parts:
        raise ConfigError(f"stores: {what} {path!r} climbs out of the state directory; use an absolute path")
    resolved = (state_dir / given).resolve()
    if not resolved.is_relative_to(state_dir):
        raise ConfigError(
            f"stores: {what} {path!r} resolves to {resolved}, outside the state directory {state_dir} "
            "(a symlink?); give an absolute path if that is really where the store belongs"
        )
    return resolved


def sqlite_identity(path: Path) -> tuple[bool, int] | None:
    """``(is SQLite, application id)`` from the file header; None when there is no file.

    A file shorter than the header (including an empty one) is not SQLite. Never writes.
    """
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
    except FileNotFoundError:
        return None
    if len(header) < 100 or not header.startswith(SQLITE_HEADER):
        return (False, 0)
    return (True, int.from_bytes(header[APPLICATION_ID_OFFSET : APPLICATION_ID_OFFSET + 4], "big"))
