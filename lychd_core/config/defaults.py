"""The embedded default configuration, identical to ``profiles/default.toml``."""

from __future__ import annotations

from typing import Any

from lychd_core.config.files import parse_config
from lychd_core.config.models import DEFAULT_RANKING, SCHEMA_VERSION, LychdConfig
from lychd_core.mediatypes import known_text_types

# This repository's own material is public source (its example vulnerability report is
# private); edit these rules for yours.
DEFAULT_LABELS: list[dict[str, Any]] = [
    {"path": "/tests/fixtures/privacy/**", "privacy_class": "private", "categories": ["vulnerability-report"]}
] + [
    {"path": f"/{path}", "privacy_class": "public", "categories": [category], "subjects": ["lychd-core"]}
    for path, category in (
        ("lychd_core/**", "source-code"),
        ("plugins/**", "source-code"),
        ("tests/**", "source-code"),
        ("benchmarks/**", "source-code"),
        ("docs/**", "documentation"),
        ("profiles/**", "configuration"),
        ("README.md", "documentation"),
    )
]
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
    """The embedded default, identical to ``profiles/default.toml``."""
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
            "labels": DEFAULT_LABELS,
            "egress": DEFAULT_EGRESS,
            "ranking": {"profiles": [*DEFAULT_RANKING]},
        },
        "<default>",
    )
