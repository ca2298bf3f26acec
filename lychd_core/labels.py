"""Privacy labels and their join.

A label records source influence, not trust or authority. Joining never lowers
influence: the highest class and weight win, sets are unioned, and lineage is
known only when every part's lineage is known. Unknown lineage is RESTRICTED.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_WEIGHT = 10_000
UNKNOWN_CATEGORY = "unknown"
LOCAL_ONLY = "local-only"
"""Handling constraint that keeps material off every remote target."""


class PrivacyClass(IntEnum):
    """Ordered disclosure classes; a larger value is more sensitive."""

    PUBLIC = 0
    INTERNAL = 1
    PRIVATE = 2
    RESTRICTED = 3


_RESTRICTED_UNKNOWN: dict[type[PrivatizationLabel], PrivatizationLabel] = {}


class PrivatizationLabel(BaseModel):
    """Influence label attached to every block, history group, continuation and query."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    privacy_class: PrivacyClass = Field(description="Disclosure class of the labelled material.")
    weight: int = Field(ge=0, le=MAX_WEIGHT, strict=True, description="Policy weight in basis points.")
    categories: frozenset[str] = frozenset()
    subjects: frozenset[str] = frozenset()
    material_parents: frozenset[str] = frozenset()
    handling_constraints: frozenset[str] = frozenset()
    lineage_known: bool = Field(description="False when the material's ancestry is not fully known.")

    @model_validator(mode="after")
    def _unknown_lineage_is_restricted(self) -> PrivatizationLabel:
        if not self.lineage_known and self.privacy_class is not PrivacyClass.RESTRICTED:
            raise ValueError(
                f"a label with unknown lineage must be RESTRICTED, got {self.privacy_class.name}; "
                "set lineage_known=true with its parents, or use PrivatizationLabel.restricted_unknown()"
            )
        return self

    @classmethod
    def restricted_unknown(cls) -> PrivatizationLabel:
        """The default for unlabelled material: restricted, full weight, unknown lineage,
        category ``unknown`` and handling constraint ``local-only``. One shared (immutable) instance
        per class: every unlabelled material of a run would otherwise validate the same value again."""
        made = _RESTRICTED_UNKNOWN.get(cls)
        if made is None:
            made = _RESTRICTED_UNKNOWN[cls] = cls(
                privacy_class=PrivacyClass.RESTRICTED,
                weight=MAX_WEIGHT,
                categories=frozenset({UNKNOWN_CATEGORY}),
                handling_constraints=frozenset({LOCAL_ONLY}),
                lineage_known=False,
            )
        return made

    @classmethod
    def public(cls, *parents: str) -> PrivatizationLabel:
        """A public label with known lineage (for material the caller vouches for)."""
        return cls(privacy_class=PrivacyClass.PUBLIC, weight=0, material_parents=frozenset(parents), lineage_known=True)

    def join(self, other: PrivatizationLabel) -> PrivatizationLabel:
        """The least label that is at least as influential as both."""
        return join_labels((self, other))

    def to_json(self) -> dict[str, Any]:
        """Canonical, digestable form (sorted sets, class by name)."""
        return {
            "privacy_class": self.privacy_class.name,
            "weight": self.weight,
            "categories": sorted(self.categories),
            "subjects": sorted(self.subjects),
            "material_parents": sorted(self.material_parents),
            "handling_constraints": sorted(self.handling_constraints),
            "lineage_known": self.lineage_known,
        }


def label_from_json(data: Any) -> PrivatizationLabel:
    """The inverse of :meth:`PrivatizationLabel.to_json` (class by name); ``ValueError`` if malformed."""
    if not isinstance(data, dict) or not isinstance(data.get("privacy_class"), str):
        raise ValueError(f"a label is an object with a privacy_class name like 'PUBLIC', got {data!r:.80}")
    name = data["privacy_class"].upper()
    if name not in PrivacyClass.__members__:
        known = "public, internal, private, restricted"
        raise ValueError(f"unknown privacy class {data['privacy_class']!r}; known: {known}")
    return PrivatizationLabel.model_validate({**data, "privacy_class": PrivacyClass[name]})


def join_labels(labels: Iterable[PrivatizationLabel]) -> PrivatizationLabel:
    """Join any number of labels; joining nothing is restricted-unknown, never public."""
    items = list(labels)
    if not items:
        return PrivatizationLabel.restricted_unknown()
    lineage_known = all(label.lineage_known for label in items)
    privacy_class = max(label.privacy_class for label in items)
    if not lineage_known:
        privacy_class = PrivacyClass.RESTRICTED
    return PrivatizationLabel(
        privacy_class=privacy_class,
        weight=max(label.weight for label in items),
        categories=frozenset().union(*(label.categories for label in items)),
        subjects=frozenset().union(*(label.subjects for label in items)),
        material_parents=frozenset().union(*(label.material_parents for label in items)),
        handling_constraints=frozenset().union(*(label.handling_constraints for label in items)),
        lineage_known=lineage_known,
    )
