"""Bounds checked before tree-sitter parses: its tree costs memory in proportion to the source.

tree-sitter's tree takes about 60 bytes of memory per source byte, and about 110 with the
outline walk (a 50 MB one-line file: 5.7 GB), and when an allocation fails under an
address-space limit the process dies by SIGSEGV with no message. So a source over
:data:`MAX_PARSE_BYTES`, a single line over :data:`MAX_LINE_BYTES` (minified or generated
code, which outlines to nothing useful), or one whose estimated need exceeds what
``RLIMIT_AS`` leaves is an explained ``Unavailable`` before any parse.
"""

from __future__ import annotations

import os
import resource

MAX_PARSE_BYTES = 8 << 20
"""Largest source tree-sitter parses, whatever ``max_bytes`` allows (about 1 GB at peak)."""
MAX_LINE_BYTES = 1 << 20
"""Longest single line tree-sitter parses."""
BYTES_PER_SOURCE_BYTE = 120
"""Estimated peak memory per source byte, parse and outline (measured: about 60 and 110)."""
_MIB = 1 << 20


def parse_bound_problem(data: bytes) -> str | None:
    """Why ``data`` must not reach tree-sitter, or None when it may."""
    if len(data) > MAX_PARSE_BYTES:
        return (
            f"the source has {len(data)} bytes, over the bound of {MAX_PARSE_BYTES} tree-sitter parses "
            f"(its tree needs about {BYTES_PER_SOURCE_BYTE} bytes of memory per source byte)"
        )
    lengths = [len(line) for line in data.split(b"\n")]
    longest = max(lengths)
    if longest > MAX_LINE_BYTES:
        return (
            f"line {lengths.index(longest) + 1} has {longest} bytes, over the bound of {MAX_LINE_BYTES} for one "
            "line (minified or generated source); outline the unminified source instead"
        )
    headroom = address_space_headroom()
    need = len(data) * BYTES_PER_SOURCE_BYTE
    if headroom is not None and need > headroom:
        return (
            f"parsing {len(data)} bytes needs about {need // _MIB} MiB, but the address-space limit (RLIMIT_AS) "
            f"leaves {headroom // _MIB} MiB; raise the limit or lower max_bytes"
        )
    return None


def address_space_headroom() -> int | None:
    """Bytes of address space this process may still map under ``RLIMIT_AS`` (None: no limit)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            mapped = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None  # not Linux: the byte and line bounds still hold
    return max(0, soft - mapped)
