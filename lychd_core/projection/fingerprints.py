"""Stat fingerprints: a file seen unchanged since it was hashed is not read again.

A :class:`FileRecord` remembers, per (machine and workspace root, path), the file's
``(device, inode, size, mtime_ns, ctime_ns)`` when it was read, the content digest of
those bytes and the media-type decision made for them. It is stored under the cache's
keyed MAC, so an edited row is a miss. A later run whose ``lstat`` gives the very same
five numbers takes the digest and decision from the record instead of reading and
hashing the file; any difference (or no record) reads and hashes it as before.

Racy timestamps (git's "racily clean" problem): a file written in the same clock tick as
it was read could change without changing its mtime. So a record is made only for a file
whose mtime and ctime are older than the run's start by :data:`RACY_MARGIN_NS` (more
than the coarsest file-system timestamp granularity); a newer file is re-hashed on every
run until it has settled. ``ctime`` cannot be set from user space, so restoring an mtime
with ``touch -d`` does not fool the check. The scope names the machine (host name and
boot id), since device and inode numbers mean nothing on another machine or after a reboot.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from lychd_core.projection.media import MediaDecision
from lychd_core.state.keys import mac, mac_matches

__all__ = ["RACY_MARGIN_NS", "FileRecord", "Fingerprint", "StatProbe", "fingerprint", "machine_scope", "settled"]

RACY_MARGIN_NS = 2_000_000_000
"""Files changed less than this before a run starts are not fingerprinted (FAT's 2 s granularity)."""

RECORD_DOMAIN = "lychd-file-record/1"
_SEPARATOR = "\x1f"  # unit separator: in no digest, media type, charset or decision source

Fingerprint = tuple[int, int, int, int, int]
"""``(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)``."""


def fingerprint(info: os.stat_result) -> Fingerprint:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def settled(stamp: Fingerprint, run_start_ns: int, margin_ns: int = RACY_MARGIN_NS) -> bool:
    """True when the file's mtime and ctime are older than the run's start by the racy margin."""
    return stamp[3] < run_start_ns - margin_ns and stamp[4] < run_start_ns - margin_ns


class StatProbe:
    """``lstat`` fingerprints of workspace files, each folder resolved once per probe.

    Only a regular file (not a symlink) of at most ``max_bytes``, in a folder that
    resolves inside the root, gets a fingerprint; anything else gets None and takes the
    full read path with its refusals.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self._folders: dict[str, str | None] = {}

    def __call__(self, path: str, max_bytes: int) -> Fingerprint | None:
        folder, _, name = path.rpartition("/")
        real = self._folders.get(folder, "")
        if real == "":
            real = self._folders[folder] = self._real_folder(folder)
        if real is None:
            return None
        try:
            info = os.lstat(f"{real}/{name}")
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        return fingerprint(info)

    def unchanged(self, paths: Iterable[str], stamps: Iterable[Sequence[int]], max_bytes: Iterable[int]) -> bool:
        """True when every path's fingerprint (as :meth:`__call__` gives it) equals its stamp; a loop in one call.

        A stamp that is not five numbers raises ``ValueError`` (the caller's miss). The fields are
        compared one by one, the likeliest to differ first, without a tuple per file.
        """
        folders, lstat, regular = self._folders, os.lstat, stat.S_ISREG
        for path, stamp, bound in zip(paths, stamps, max_bytes, strict=True):
            folder, _, name = path.rpartition("/")
            real = folders.get(folder, "")
            if real == "":
                real = folders[folder] = self._real_folder(folder)
            if real is None:
                return False
            try:
                info = lstat(f"{real}/{name}")
            except OSError:
                return False
            device, inode, size, mtime, ctime = stamp
            if (
                info.st_mtime_ns != mtime
                or info.st_size != size
                or info.st_ino != inode
                or info.st_ctime_ns != ctime
                or info.st_dev != device
                or size > bound
                or not regular(info.st_mode)
            ):
                return False
        return True

    def _real_folder(self, folder: str) -> str | None:
        real = os.path.realpath(os.path.join(self.root, folder)) if folder else self.root
        return real if real == self.root or real.startswith(self.root.rstrip(os.sep) + os.sep) else None


@lru_cache(maxsize=64)
def machine_scope(root: str) -> str:
    """``host/boot-id:root``: where device and inode numbers mean the same file."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            boot = handle.read().strip()
    except OSError:
        boot = "no-boot-id"
    return f"{socket.gethostname()}/{boot}:{root}"


@dataclass(frozen=True, slots=True)
class FileRecord:
    """One path's fingerprint, the digest of the bytes read with it, and their media decision."""

    path: str
    stamp: Fingerprint
    digest: str
    pinned: str
    """The reference's pinned media type, or ''."""
    detector: str
    """Identity of the media-type detector (tables, declarations, libmagic) that decided."""
    media: MediaDecision

    def encode(self, secret: bytes, scope: str) -> tuple[str, str]:
        """(record text, MAC) bound to the scope and path."""
        media = self.media
        fields = [*map(str, self.stamp), self.digest, self.pinned, self.detector]
        fields += [media.media_type, media.source, media.charset, media.magic_type]
        if any(_SEPARATOR in field for field in fields):
            raise ValueError(f"a file record field holds the separator: {fields!r}")
        text = _SEPARATOR.join(fields)
        return text, mac(secret, RECORD_DOMAIN, scope, self.path, text)

    @staticmethod
    def decode(secret: bytes, scope: str, path: str, text: object, tag: object) -> FileRecord | None:
        """The record when its MAC verifies for this scope and path, else None (a miss)."""
        if not isinstance(text, str) or not mac_matches(secret, tag, RECORD_DOMAIN, scope, path, text):
            return None
        fields = text.split(_SEPARATOR)
        if len(fields) != 12:
            return None
        try:
            stamp = (int(fields[0]), int(fields[1]), int(fields[2]), int(fields[3]), int(fields[4]))
        except ValueError:
            return None
        decision = MediaDecision(fields[8], fields[9], fields[10], fields[11])  # type: ignore[arg-type]
        return FileRecord(path, stamp, fields[5], fields[6], fields[7], decision)


def decode_file_records(secret: bytes, scope: str, rows: Iterable[Sequence[object]]) -> dict[str, FileRecord]:
    """Verified records among ``(path, record text, MAC)`` rows of either cache backend, by path."""
    found = (FileRecord.decode(secret, scope, str(row[0]), row[1], row[2]) for row in rows)
    return {record.path: record for record in found if record is not None}
