"""Media type names: the core's normalization and its file-kind tables, shared by
configuration, registry and projection.

Detection (libmagic, shebangs, precedence) is a projection stage and lives in
:mod:`lychd_core.projection.media`; this module only says what a normalized name is
and which exact file names and extensions the core itself names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from lychd_core.errors import MediaTypeError

OCTET_STREAM = "application/octet-stream"

_MEDIA_TYPE_RE = re.compile(r"^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$")

ALIASES = MappingProxyType(
    {
        "text/x-script.python": "text/x-python",
        "text/x-python-script": "text/x-python",
        "application/x-python-code": "text/x-python",
        "application/x-toml": "application/toml",
        "text/x-toml": "application/toml",
        "text/toml": "application/toml",
        "text/x-yaml": "application/yaml",
        "application/x-yaml": "application/yaml",
        "text/yaml": "application/yaml",
        "text/x-markdown": "text/markdown",
        "text/json": "application/json",
        "application/javascript": "text/javascript",
        "text/x-sh": "text/x-shellscript",
        "application/x-sh": "text/x-shellscript",
        "text/xml": "application/xml",
    }
)

TEXT_APPLICATION_TYPES = frozenset({"application/json", "application/toml", "application/yaml", "application/xml"})


def normalize_media_type(value: str) -> str:
    """Lower-case, drop parameters, and map known aliases to one canonical name."""
    base = value.split(";", 1)[0].strip().lower()
    if not _MEDIA_TYPE_RE.match(base):
        raise MediaTypeError(f"{value!r} is not a media type; expected 'type/subtype', e.g. 'text/x-python'")
    return ALIASES.get(base, base)


def is_textual(media_type: str) -> bool:
    return media_type.startswith("text/") or media_type in TEXT_APPLICATION_TYPES


FILE_NAMES = MappingProxyType(
    {
        "Makefile": "text/x-makefile",
        "GNUmakefile": "text/x-makefile",
        "Dockerfile": "text/x-dockerfile",
        "LICENSE": "text/plain",
        "README": "text/plain",
    }
)

_SOURCE_EXTENSIONS = {
    ".py": "text/x-python",
    ".pyi": "text/x-python",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".cjs": "text/javascript",
    ".jsx": "text/javascript",
    ".ts": "text/x-typescript",
    ".tsx": "text/x-tsx",
    ".go": "text/x-go",
    ".rs": "text/x-rust",
    ".java": "text/x-java",
    ".c": "text/x-c",
    ".h": "text/x-c",
    ".cc": "text/x-c++",
    ".cpp": "text/x-c++",
    ".cxx": "text/x-c++",
    ".hpp": "text/x-c++",
    ".cs": "text/x-csharp",
    ".kt": "text/x-kotlin",
    ".kts": "text/x-kotlin",
    ".scala": "text/x-scala",
    ".swift": "text/x-swift",
    ".rb": "text/x-ruby",
    ".php": "text/x-php",
    ".pl": "text/x-perl",
    ".lua": "text/x-lua",
    ".r": "text/x-r",
    ".sql": "text/x-sql",
    ".sh": "text/x-shellscript",
    ".bash": "text/x-shellscript",
    ".zsh": "text/x-shellscript",
}
_DOCUMENT_EXTENSIONS = {
    ".toml": "application/toml",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".json": "application/json",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".txt": "text/plain",
    ".rst": "text/x-rst",
    ".cfg": "text/plain",
    ".ini": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".css": "text/css",
    ".xml": "application/xml",
    ".csv": "text/csv",
    ".tex": "text/x-tex",
    ".diff": "text/x-diff",
    ".patch": "text/x-diff",
}
EXTENSIONS = MappingProxyType(dict(sorted({**_SOURCE_EXTENSIONS, **_DOCUMENT_EXTENSIONS}.items())))

# Every text kind libmagic's own database (file 5.44) can answer with (step 5 of detection),
# listed whole so that no text file libmagic recognises lacks a rule: a subset once left
# ripgrep's man pages (``text/troff``) unavailable. Names are normalized (lower case).
LIBMAGIC_TEXT_TYPES = frozenset(
    {
        "text/calendar", "text/html", "text/pgp", "text/plain", "text/rtf", "text/texmacs", "text/troff",
        "text/vcard", "text/vnd.sosi", "text/vtt", "text/x-algol68", "text/x-asm", "text/x-awk", "text/x-bcpl",
        "text/x-c", "text/x-c++", "text/x-clojure", "text/x-diff", "text/x-dmtf-mif", "text/x-execline",
        "text/x-forth", "text/x-fortran", "text/x-gawk", "text/x-gimp-curve", "text/x-gimp-ggr", "text/x-gimp-gpl",
        "text/x-info", "text/x-installshield-lid", "text/x-java", "text/x-lisp", "text/x-lua", "text/x-luatex",
        "text/x-m4", "text/x-makefile", "text/x-modulefile", "text/x-ms-adm", "text/x-ms-cpx", "text/x-ms-regedit",
        "text/x-ms-scf", "text/x-ms-tag", "text/x-msdos-batch", "text/x-nawk", "text/x-objective-c",
        "text/x-pascal", "text/x-perl", "text/x-php", "text/x-po", "text/x-ruby", "text/x-shellscript",
        "text/x-systemtap", "text/x-tcl", "text/x-tex", "text/x-texinfo", "text/x-via-scf",
        "text/x-wine-extension-reg", "text/x-xmcd",
    }
)  # fmt: skip


def known_text_types() -> frozenset[str]:
    """Every text media type the core itself can decide (its tables and libmagic's usual answers)."""
    named = {*FILE_NAMES.values(), *EXTENSIONS.values(), *LIBMAGIC_TEXT_TYPES, "text/x-python", "text/x-shellscript"}
    return frozenset(kind for kind in named if is_textual(kind))


def file_key_kind(key: str) -> str:
    """``"extension"`` for ``.ext`` (or ``.d.ts``), ``"file-name"`` for an exact name; else MediaTypeError."""
    if not key or "/" in key or "\\" in key or "\x00" in key or key.strip() != key or key in {".", ".."}:
        raise MediaTypeError(
            f"{key!r} is neither an extension ('.toy') nor an exact file name ('Justfile'); no paths or globs"
        )
    if any(ch in key for ch in "*?[]"):
        raise MediaTypeError(f"{key!r} looks like a glob; name an exact file name or an extension such as '.toy'")
    if key.startswith("."):
        if key != key.lower() or ".." in key or key.endswith("."):
            raise MediaTypeError(f"extension {key!r} must be lower case with no empty part, e.g. {key.lower()!r}")
        return "extension"
    return "file-name"


def check_file_media_types(declared: object, own: frozenset[str]) -> None:
    """A profile's ``file_media_types``: a mapping of file keys to normalized media types it accepts."""
    if not isinstance(declared, Mapping):
        raise MediaTypeError(f"file_media_types must map file names or extensions to media types, got {declared!r}")
    for key, media_type in declared.items():
        if not isinstance(key, str) or not isinstance(media_type, str):
            raise MediaTypeError(f"file_media_types entry {key!r}: {media_type!r} must map a string to a string")
        file_key_kind(key)
        if normalize_media_type(media_type) != media_type:
            raise MediaTypeError(f"file_media_types {key!r}: use normalized {normalize_media_type(media_type)!r}")
        if media_type not in own:
            raise MediaTypeError(
                f"file_media_types {key!r} names {media_type}, which the profile does not accept "
                f"(accepts: {', '.join(sorted(own))}); a profile declares only its own media types"
            )
