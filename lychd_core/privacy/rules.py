"""Labels from ``[[labels]]`` rules: ordered gitignore-style globs (:mod:`.globs`), first match wins.

A matching rule gives a label of known lineage whose one material parent is the
material's digest-bound reference (``path@digest``). Material no rule matches stays
restricted with unknown lineage. A label the caller supplied is never lowered by a
rule: the two are joined.
"""

from __future__ import annotations

from collections.abc import Sequence

from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy.globs import compile_glob
from lychd_core.privacy.settings import LabelRule, class_of


def rule_label(rule: LabelRule, path: str, digest: str) -> PrivatizationLabel:
    return PrivatizationLabel(
        privacy_class=class_of(rule.privacy_class),
        weight=rule.weight,
        categories=frozenset(rule.categories),
        subjects=frozenset(rule.subjects),
        material_parents=frozenset({f"{path}@{digest}"}),
        handling_constraints=frozenset(rule.handling_constraints),
        lineage_known=True,
    )


def matching_rule(rules: Sequence[LabelRule], path: str) -> tuple[int, LabelRule] | None:
    """The first rule (and its index) whose glob matches ``path``."""
    for index, rule in enumerate(rules):
        if compile_glob(rule.path).match(path):
            return index, rule
    return None


def label_for(
    rules: Sequence[LabelRule], path: str | None, digest: str, explicit: PrivatizationLabel | None = None
) -> PrivatizationLabel:
    """The label of one material: its first matching rule, joined with any label the caller gave."""
    found = matching_rule(rules, path) if path is not None else None
    if found is None:
        return explicit if explicit is not None else PrivatizationLabel.restricted_unknown()
    labelled = rule_label(found[1], path or "", digest)
    return labelled if explicit is None else explicit.join(labelled)
