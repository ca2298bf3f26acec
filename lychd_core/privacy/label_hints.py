"""How to label what an egress target refused: the ``[[labels]]`` rules to add.

Only material that no rule labelled (unknown lineage) gets a suggested rule; material a
rule did label was labelled on purpose, and the hint leaves it alone. Query, history and
continuation nodes carry the label their caller vouches for, so the hint names that.
"""

from __future__ import annotations

from collections.abc import Iterable

from lychd_core.labels import PrivacyClass, PrivatizationLabel

CODEX_PREFIX = "L2:codex:"
CALLER_PARTS = ("query", "history", "continuation")
MAX_RULES = 5


def material_path(node_id: str) -> str | None:
    """The workspace path of a projected-material node (``L2:codex:<path>:<profile>@<rev>``)."""
    if not node_id.startswith(CODEX_PREFIX):
        return None
    source, separator, _pin = node_id[len(CODEX_PREFIX) :].rpartition(":")
    return source if separator and source else None


def rule_pattern(path: str) -> str:
    """The glob a rule for ``path`` would use: its top folder, or the file itself at the root."""
    top, _, rest = path.partition("/")
    return f"{top}/**" if rest else top


def label_hint(offenders: Iterable[tuple[str, PrivatizationLabel]], max_class: PrivacyClass) -> str:
    """A sentence, with the TOML to add, for the unlabelled offenders; '' when there are none."""
    patterns: list[str] = []
    callers: list[str] = []
    for node_id, label in offenders:
        if label.lineage_known:
            continue
        path = material_path(node_id)
        if path is not None:
            if (pattern := rule_pattern(path)) not in patterns:
                patterns.append(pattern)
        elif (part := node_id.split(":", 1)[0]) in CALLER_PARTS and part not in callers:
            callers.append(part)
    hints: list[str] = []
    if patterns:
        klass = max_class.name.lower()
        rules = "".join(
            f'\n  [[labels]]\n  path = "{pattern}"\n  privacy_class = "{klass}"' for pattern in patterns[:MAX_RULES]
        )
        more = f"\n  (and {len(patterns) - MAX_RULES} more folders)" if len(patterns) > MAX_RULES else ""
        hints.append(
            "no [[labels]] rule matches the material, so it is restricted with unknown lineage; "
            f"if it may go there, add to your lychd.toml (after any narrower rule: the first match wins):{rules}{more}"
        )
    if callers:
        flags = ", ".join(f"--{part}-label" for part in callers)
        verb = "carries" if len(callers) == 1 else "carry"
        hints.append(f"the {' and '.join(callers)} {verb} the label its caller vouches for (lychd assemble: {flags})")
    return "\n".join(hints)
