"""Media type names: the core's normalization, shared by configuration, registry and projection.

Detection (libmagic and the file-kind tables) is a projection stage and lives in
:mod:`lychd_core.projection.media`; this module only says what a normalized name is.
"""

from __future__ import annotations

import re
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
