"""One normalized media type per material, decided by the core.

libmagic (python-magic) says what the bytes are: binary or text, and the charset.
It calls most source files ``text/plain``, so tables of file kinds (file name,
extension, shebang) name the text kind: the core's own, extended by the configuration's
``[media_types]`` and the profiles' declarations (:mod:`lychd_core.config.media_table`).
Precedence, highest first:

1. binary content (libmagic charset ``binary`` or a NUL byte) — never becomes text;
2. a media type pinned on the material reference;
3. the configuration's ``[media_types]``: exact file name, then extension;
4. installed profiles' declared file names, then extensions;
5. the core's exact file name, then extension table;
6. the shebang table;
7. libmagic's own (normalized) answer.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Literal

import magic

from lychd_core.config.media_table import EMPTY_TABLE, MediaTable, file_suffix
from lychd_core.errors import MediaTypeError
from lychd_core.mediatypes import EXTENSIONS, FILE_NAMES, OCTET_STREAM, is_textual, normalize_media_type

__all__ = ["EXTENSIONS", "FILE_NAMES", "SHEBANGS", "MediaDecision", "binary_reason", "detect_media_type", "sniff"]

DECISION_REVISION = 2
"""Bumped when the precedence below changes, so cached decisions are made again (2: binary
content a name calls text is application/octet-stream, never libmagic's guess)."""
SNIFF_BYTES = 65_536
NOT_SNIFFED = "not-sniffed"

SHEBANGS: tuple[tuple[re.Pattern[bytes], str], ...] = (
    (re.compile(rb"^#![^\n]*\bpython[0-9.]*\b"), "text/x-python"),
    (re.compile(rb"^#![^\n]*\b(ba|z|da)?sh\b"), "text/x-shellscript"),
)

DecisionSource = Literal[
    "binary",
    "pinned",
    "config-file-name",
    "config-extension",
    "profile-file-name",
    "profile-extension",
    "file-name",
    "extension",
    "shebang",
    "libmagic",
]


@dataclass(frozen=True, slots=True)
class MediaDecision:
    """The decided media type, which rule decided it, and what libmagic saw."""

    media_type: str
    source: DecisionSource
    charset: str
    magic_type: str

    @property
    def is_binary(self) -> bool:
        return self.source == "binary"


_magic_lock = threading.Lock()
_magic: magic.Magic | None = None


def sniff(data: bytes) -> tuple[str, str]:
    """libmagic's ``(mime type, charset)`` for the first bytes of ``data``."""
    global _magic
    if not data:
        return "text/plain", "us-ascii"
    with _magic_lock:
        if _magic is None:
            _magic = magic.Magic(mime=True, mime_encoding=True)
        raw = _magic.from_buffer(data[:SNIFF_BYTES])
    mime, _, params = raw.partition(";")
    charset = params.strip().removeprefix("charset=") or "unknown"
    return mime.strip().lower(), charset.lower()


# C0 controls plain text does not hold (tab, line feed, vertical tab, form feed, carriage
# return and escape are allowed); like libmagic, their presence means "not plain text".
NOT_PLAIN_TEXT = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
_PLAIN_BYTES = bytes(byte for byte in range(256) if not NOT_PLAIN_TEXT.match(bytes([byte])))
"""Every byte ``NOT_PLAIN_TEXT`` does not match: deleting them leaves only the controls (in C, about
7x faster than the regex's search over a file's first bytes)."""


def _plain_utf8(head: bytes) -> str | None:
    """``us-ascii`` or ``utf-8`` when ``head`` is plain text in that charset, else None."""
    if head.translate(None, _PLAIN_BYTES):  # = NOT_PLAIN_TEXT.search(head)
        return None
    if head.isascii():
        return "us-ascii"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(head) < SNIFF_BYTES or exc.start < len(head) - 3:  # a character cut at the sniff boundary is fine
            return None
    return "utf-8"


def binary_reason(path: str, decision: MediaDecision, table: MediaTable = EMPTY_TABLE) -> str:
    """Why ``decision`` called the content binary, in words (for messages)."""
    named = _by_name(path, table)
    seen = f"libmagic: {decision.magic_type}, charset {decision.charset}"
    if named is not None:
        return f"its name says {named[0]}, but it holds bytes text never has ({seen})"
    return f"its content is not text ({seen})"


def _by_name(path: str, table: MediaTable) -> tuple[str, DecisionSource] | None:
    declared = table.lookup(path)
    if declared is not None:
        return declared[0].media_type, declared[1]
    name = path.rpartition("/")[2]
    if name in FILE_NAMES:
        return FILE_NAMES[name], "file-name"
    suffix = file_suffix(name).lower()
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix], "extension"
    return None


def detect_media_type(
    path: str, data: bytes, pinned: str | None = None, table: MediaTable = EMPTY_TABLE
) -> MediaDecision:
    """Decide the normalized media type of ``data`` found at workspace path ``path``.

    ``table`` holds the declared media types (configuration, then profiles); see the module docstring.
    When a name decides and the first bytes are plain UTF-8 text, libmagic is not asked (it
    would only confirm "text"); its type is then reported as ``not-sniffed``.
    """
    named = None if pinned is not None else _by_name(path, table)
    if named is not None:
        charset = _plain_utf8(data[:SNIFF_BYTES])
        if charset is not None:
            return MediaDecision(named[0], named[1], charset, NOT_SNIFFED)
    magic_type, charset = sniff(data)
    binary = charset == "binary" or b"\x00" in data[:SNIFF_BYTES]
    if binary:
        kind = normalize_media_type(magic_type)
        if is_textual(kind) or named is not None:  # a .py holding NULs is binary, not libmagic's guess (zlib)
            kind = OCTET_STREAM
        if pinned is not None and is_textual(normalize_media_type(pinned)):
            raise MediaTypeError(
                f"{path}: pinned as {pinned!r} but the content is binary ({magic_type}); binary never becomes text"
            )
        return MediaDecision(kind, "binary", charset, magic_type)
    if pinned is not None:
        return MediaDecision(normalize_media_type(pinned), "pinned", charset, magic_type)
    if named is not None:
        return MediaDecision(named[0], named[1], charset, magic_type)
    for pattern, kind in SHEBANGS:
        if pattern.match(data):
            return MediaDecision(kind, "shebang", charset, magic_type)
    return MediaDecision(normalize_media_type(magic_type), "libmagic", charset, magic_type)
