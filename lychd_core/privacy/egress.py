"""The egress decision: may this assembled context go to this target?

The decision joins the context's node labels once and checks the joined label
against the target; only a refusal pays for naming the offending nodes, so the
admit path costs about one join.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lychd_core.errors import PrivacyRefusal
from lychd_core.labels import PrivatizationLabel, join_labels
from lychd_core.privacy.errors import UnknownContributorError
from lychd_core.privacy.label_hints import label_hint
from lychd_core.privacy.settings import EgressTarget


def label_problems(label: PrivatizationLabel, target: EgressTarget) -> tuple[str, ...]:
    """Why ``label`` may not go to ``target`` (empty when it may), as short typed phrases."""
    problems: list[str] = []
    if label.privacy_class > target.privacy_class:
        problems.append(f"class {label.privacy_class.name} above {target.privacy_class.name}")
    if not label.lineage_known and not target.allow_unknown_lineage:
        problems.append("lineage unknown")
    if target.allowed_categories is not None:
        problems += [f"category {c} not allowed" for c in sorted(label.categories - set(target.allowed_categories))]
    if target.allowed_subjects is not None:
        problems += [f"subject {s} not allowed" for s in sorted(label.subjects - set(target.allowed_subjects))]
    problems += [f"handling constraint {c}" for c in sorted(label.handling_constraints & target.blocks)]
    return tuple(problems)


@dataclass(frozen=True, slots=True)
class Offender:
    """One node that keeps a context from its target, with its label and why."""

    node_id: str
    label: PrivatizationLabel
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"node_id": self.node_id, "label": self.label.to_json(), "reasons": list(self.reasons)}


@dataclass(frozen=True, slots=True)
class EgressDecision:
    """Admit, or refuse naming the offending nodes. A sealed admission names only a random event id."""

    target: str
    admitted: bool
    label: PrivatizationLabel
    offenders: tuple[Offender, ...] = ()
    reasons: tuple[str, ...] = ()
    sealed_event: str | None = None
    uses_left: int | None = None
    hint: str = ""
    """How to label what was refused (the ``[[labels]]`` rules to add), for the message."""

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "admitted": self.admitted,
            "label": self.label.to_json(),
            "reasons": list(self.reasons),
            "offenders": [offender.to_json() for offender in self.offenders],
            "sealed_event": self.sealed_event,
            "uses_left": self.uses_left,
        }

    def raise_if_refused(self) -> EgressDecision:
        if not self.admitted:
            raise EgressRefused(self)
        return self


def decide_egress(
    node_labels: Mapping[str, PrivatizationLabel], target_name: str, target: EgressTarget
) -> EgressDecision:
    """Admit or refuse one context (its nodes' labels) for one target. Nothing joined is refused."""
    joined = join_labels(node_labels.values())
    problems = label_problems(joined, target)
    if not problems:
        return EgressDecision(target_name, True, joined)
    offenders = tuple(
        Offender(node_id, label, reasons)
        for node_id, label in node_labels.items()
        if (reasons := label_problems(label, target))
    )
    hint = label_hint(((o.node_id, o.label) for o in offenders), target.privacy_class)
    return EgressDecision(target_name, False, joined, offenders, problems, hint=hint)


def label_sources(node_labels: Mapping[str, PrivatizationLabel]) -> dict[str, list[str]]:
    """Which nodes make the joined label what it is: the top class, top weight, unknown lineage,
    and each category, subject and handling constraint."""
    if not node_labels:
        return {}
    top_class = max(label.privacy_class for label in node_labels.values())
    top_weight = max(label.weight for label in node_labels.values())
    sources: dict[str, list[str]] = {
        f"class {top_class.name}": [n for n, label in node_labels.items() if label.privacy_class == top_class],
        f"weight {top_weight}": [n for n, label in node_labels.items() if label.weight == top_weight],
    }
    unknown = [n for n, label in node_labels.items() if not label.lineage_known]
    if unknown:
        sources["lineage unknown"] = unknown

    def add(kind: str, values: Iterable[tuple[str, frozenset[str]]]) -> None:
        for node_id, names in values:
            for name in sorted(names):
                sources.setdefault(f"{kind} {name}", []).append(node_id)

    add("category", ((n, label.categories) for n, label in node_labels.items()))
    add("subject", ((n, label.subjects) for n, label in node_labels.items()))
    add("constraint", ((n, label.handling_constraints) for n, label in node_labels.items()))
    return sources


def contributors_label(
    node_labels: Mapping[str, PrivatizationLabel], contributors: Iterable[str]
) -> PrivatizationLabel:
    """The join of exactly the named contributors' labels (no unrelated over-taint).

    An unknown name is refused, naming it; naming nothing is restricted-unknown.
    """
    names = list(contributors)
    missing = [name for name in names if name not in node_labels]
    if missing:
        raise UnknownContributorError(f"contributors are not nodes of this context: {', '.join(missing[:5])}")
    return join_labels(node_labels[name] for name in names)


class EgressRefused(PrivacyRefusal):
    """An assembled context may not be sent to a target; ``decision`` names the offending nodes."""

    def __init__(self, decision: EgressDecision) -> None:
        offenders = ", ".join(f"{o.node_id} ({'; '.join(o.reasons)})" for o in decision.offenders[:5])
        more = len(decision.offenders) - 5
        super().__init__(
            f"egress to target {decision.target!r} refused: {offenders}"
            + (f" and {more} more" if more > 0 else "")
            + "; label the material with [[labels]] rules, choose a target that admits it, or prepare a Privacy Cut"
            + (f"\n{decision.hint}" if decision.hint else "")
        )
        self.decision = decision
