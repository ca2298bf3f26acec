"""Locked, non-dumpable, zeroed-after-use buffers for plaintext map bytes and data keys.

An anonymous mapping is ``mlock``-ed (kept out of swap) and marked ``MADV_DONTDUMP``
(left out of core dumps); closing it overwrites every byte with zeros before unlocking.
CPython cannot promise that no copy exists elsewhere: see docs/privacy.md.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import mmap
import os
from typing import Any

from lychd_core.errors import LockError

PAGE = mmap.PAGESIZE


def libc() -> Any:
    """The C library, with errno captured (Linux and other POSIX systems)."""
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


_LIBC = libc()


class LockedBuffer:
    """``size`` bytes of locked, non-dumpable memory; use as a context manager, zeroed on exit."""

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ValueError(f"buffer size must be >= 0, got {size}")
        self.size = size
        self._length = max(PAGE, -(-size // PAGE) * PAGE)
        self._map: mmap.mmap | None = mmap.mmap(-1, self._length, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        self._anchor = (ctypes.c_char * self._length).from_buffer(self._map)
        self._address = ctypes.addressof(self._anchor)
        self.dontdump = False
        if _LIBC.mlock(ctypes.c_void_p(self._address), ctypes.c_size_t(self._length)) != 0:
            code = ctypes.get_errno()
            self._release(locked=False)
            raise LockError(f"mlock of {self._length} bytes failed: {os.strerror(code)} (raise RLIMIT_MEMLOCK)")
        dontdump = getattr(mmap, "MADV_DONTDUMP", None)
        if dontdump is not None:
            self._map.madvise(dontdump)
            self.dontdump = True

    @property
    def view(self) -> memoryview:
        """A writable view of the first ``size`` bytes (release it before closing)."""
        if self._map is None:
            raise ValueError("buffer is closed (its bytes were zeroed)")
        return memoryview(self._map)[: self.size]

    def zero(self) -> None:
        """Overwrite the whole mapping with zeros."""
        if self._map is not None:
            ctypes.memset(self._address, 0, self._length)
            self._zeroed = not any(ctypes.string_at(self._address, self._length))

    def is_zero(self) -> bool:
        """Whether every byte of the mapping is zero (read through its address, even after close)."""
        return not any(ctypes.string_at(self._address, self._length)) if self._map is not None else self._zeroed

    _zeroed = False

    def _release(self, *, locked: bool) -> None:
        if self._map is None:
            return
        self.zero()
        if locked:
            _LIBC.munlock(ctypes.c_void_p(self._address), ctypes.c_size_t(self._length))
        del self._anchor
        mapping, self._map = self._map, None
        # a view may still be referenced (e.g. by a traceback); the bytes are already zero and GC unmaps
        with contextlib.suppress(BufferError):
            mapping.close()

    def close(self) -> None:
        """Zero, unlock and unmap."""
        self._release(locked=True)

    def __enter__(self) -> LockedBuffer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def fill_random(buffer: LockedBuffer) -> None:
    """Fill the buffer from the kernel CSPRNG without an intermediate bytes object where possible."""
    getrandom = getattr(_LIBC, "getrandom", None)
    if getrandom is not None:
        got = getrandom(ctypes.c_void_p(buffer._address), ctypes.c_size_t(buffer.size), ctypes.c_uint(0))
        if got == buffer.size:
            return
    buffer.view[:] = os.urandom(buffer.size)
