"""The projection cache's MAC key: a 0600 file outside the cache, created once, never stored in it.

Whoever can read this key can forge cache entries; whoever can only write the cache
cannot (a forged or edited entry fails its MAC and reads as a miss).
"""

from __future__ import annotations

import hmac
import os
import stat
import time
from contextlib import suppress
from pathlib import Path

from lychd_core.errors import ProjectionCacheError

KEY_BYTES = 32
MAC_PREFIX = "hmac-sha256:"


def load_or_create_key(path: Path) -> bytes:
    """The key at ``path``, created (0600, atomically) when absent; a bad key file is refused."""
    for _ in range(2):
        try:
            return _read_key(path)
        except FileNotFoundError:
            _create_key(path)
    return _read_key(path)


def _read_key(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ProjectionCacheError(f"projection cache key {path} cannot be read: {exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ProjectionCacheError(f"projection cache key {path} is not a regular file; it was left untouched")
        if info.st_mode & 0o077:
            raise ProjectionCacheError(
                f"projection cache key {path} is readable or writable by others (mode {stat.S_IMODE(info.st_mode):o}); "
                f"run chmod 600 {path}"
            )
        key = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(key) != KEY_BYTES:
        raise ProjectionCacheError(
            f"projection cache key {path} holds {len(key)} bytes, expected {KEY_BYTES}; "
            "delete it (the cache then reads as empty) or restore it"
        )
    return key


def _create_key(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ProjectionCacheError(f"directory of projection cache key {path} cannot be created: {exc}") from None
    scratch = path.with_name(f".{path.name}.creating-{os.getpid()}-{time.monotonic_ns()}")
    try:
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, os.urandom(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        with suppress(FileExistsError):  # another process made one first: use theirs
            os.link(scratch, path)
    except OSError as exc:
        raise ProjectionCacheError(f"projection cache key {path} cannot be created: {exc}") from None
    finally:
        with suppress(FileNotFoundError):
            scratch.unlink()


def encoded(part: str) -> bytes:
    """A MAC part's bytes: UTF-8, surrogates passed through (any str, even an undecodable file name)."""
    return part.encode("utf-8", "surrogatepass")


def mac(key: bytes, *parts: str) -> str:
    """Keyed MAC over the parts (newline-joined UTF-8)."""
    # Each part encoded on its own (the same bytes as encoding the joined text): joining an ASCII part to
    # a wider one would first widen every character of the ASCII one.
    return mac_of_encoded(key, *[encoded(part) for part in parts])


def mac_of_encoded(key: bytes, *parts: bytes) -> str:
    """:func:`mac` of parts already passed through :func:`encoded` (a caller that needs the bytes anyway)."""
    if sum(map(len, parts)) < 1 << 16:
        return MAC_PREFIX + hmac.digest(key, b"\n".join(parts), "sha256").hex()  # one-shot: no HMAC object
    streamed = hmac.new(key, b"\n".join([*parts[:-1], b""]), "sha256")  # a large last part: no joined copy
    streamed.update(parts[-1])
    return MAC_PREFIX + streamed.hexdigest()


def mac_matches(key: bytes, expected: object, *parts: str) -> bool:
    """Constant-time check; any stored value that is not the exact MAC (other type, non-ASCII) is False."""
    return encoded_mac_matches(key, expected, *[encoded(part) for part in parts])


def encoded_mac_matches(key: bytes, expected: object, *parts: bytes) -> bool:
    """:func:`mac_matches` of parts already passed through :func:`encoded`."""
    if not isinstance(expected, str):
        return False
    try:
        given = expected.encode("ascii")
    except UnicodeError:
        return False
    return hmac.compare_digest(mac_of_encoded(key, *parts).encode("ascii"), given)
