"""The embedded default configuration: neutral, for any repository.

It holds no ``[[labels]]`` rules (unlabelled material stays restricted, so only the
built-in local target admits it); ``profiles/default.toml`` is this default plus this
repository's own label rules (a test keeps the two otherwise equal).
"""

from __future__ import annotations

from typing import Any

from lychd_core.config.files import parse_config
from lychd_core.config.models import DEFAULT_RANKING, SCHEMA_VERSION, LychdConfig
from lychd_core.mediatypes import known_text_types

DEFAULT_EGRESS: dict[str, Any] = {
    "default_target": "local",
    "targets": {"hosted": {"remote": True, "max_class": "internal", "blocking_constraints": ["local-only"]}},
}
STRUCTURE_PROFILES = {
    "text/x-python": "structure.python",
    "text/javascript": "structure.javascript",
    "text/x-typescript": "structure.typescript",
    "text/x-tsx": "structure.typescript",
    "text/x-go": "structure.go",
    "text/x-rust": "structure.rust",
    "text/x-java": "structure.java",
}
STRUCTURE_REVISIONS = {"structure.javascript": 3, "structure.typescript": 3, "structure.go": 2, "structure.rust": 2}
"""Structure profiles past revision 1 (their outlines changed); the rest are at 1."""


DEFAULT_COMPRESSORS = (("tool-output-elision", 2), ("verbatim-to-structure", 1), ("history-prefix-digest", 1))


def default_config() -> LychdConfig:
    """The embedded neutral default (``lychd config init`` writes it, commented)."""
    # Every text kind the core knows: its first-party structure profile, else verbatim.
    rules: dict[str, Any] = {kind: {"profile": "verbatim", "revision": 1} for kind in known_text_types()}
    rules.update(
        {
            kind: {"profile": name, "revision": STRUCTURE_REVISIONS.get(name, 1)}
            for kind, name in STRUCTURE_PROFILES.items()
        }
    )
    return parse_config(
        {
            "schema_version": SCHEMA_VERSION,
            "projection": {"rules": dict(sorted(rules.items()))},
            "role_policy": {"name": "roles.standard", "revision": 1},
            "privacy_profile": {"name": "closed-diagnostic", "revision": 1},
            "compression": {
                "compressors": [
                    {"name": f"compress.{name}", "revision": revision} for name, revision in DEFAULT_COMPRESSORS
                ]
            },
            "egress": DEFAULT_EGRESS,
            "ranking": {"profiles": [*DEFAULT_RANKING]},
        },
        "<default>",
    )
