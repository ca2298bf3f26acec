"""Typed ``[[labels]]`` rules and ``[egress]`` targets of the deployment configuration.

Kept apart from ``lychd_core.config`` (which embeds them) so the privacy stage does
not import the plugin registry.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from lychd_core.errors import UnknownTargetError
from lychd_core.labels import LOCAL_ONLY, MAX_WEIGHT, PrivacyClass
from lychd_core.privacy.globs import glob_problem

ClassName = Literal["public", "internal", "private", "restricted"]
LOCAL_TARGET = "local"


def class_of(name: ClassName) -> PrivacyClass:
    return PrivacyClass[name.upper()]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _names(values: tuple[str, ...], what: str) -> tuple[str, ...]:
    for value in values:
        if not value or value != value.strip():
            raise ValueError(f"{what} entries must be non-empty names without surrounding spaces, got {value!r}")
    return tuple(sorted(set(values)))


class LabelRule(_Strict):
    """One ordered rule: material whose workspace-relative path matches ``path`` gets this label."""

    path: str = Field(
        min_length=1,
        description="Gitignore-style glob, workspace-relative ('*' within a name, '**' across folders; "
        "a pattern without '/' matches at any depth; a folder matches everything under it).",
        examples=["lychd_core/**"],
    )
    privacy_class: ClassName = Field(description="Privacy class given to matching material.", examples=["public"])
    weight: int = Field(
        default=0, ge=0, le=MAX_WEIGHT, strict=True, description="Policy weight in basis points.", examples=[0]
    )
    categories: tuple[str, ...] = Field(
        default=(), description="Categories of the material (for egress filters).", examples=[["source-code"]]
    )
    subjects: tuple[str, ...] = Field(
        default=(), description="Known subjects or namespaces the material is about.", examples=[["lychd-core"]]
    )
    handling_constraints: tuple[str, ...] = Field(
        default=(), description="Handling constraints; 'local-only' keeps it off remote targets.", examples=[[]]
    )

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        if value.startswith("/") and len(value) > 1 and value[1] == "/":
            raise ValueError(f"label rule path {value!r} is not a workspace-relative glob")
        if "\\" in value or "\x00" in value or ".." in value.split("/"):
            raise ValueError(f"label rule path {value!r} must be a workspace-relative glob with '/' separators")
        problem = glob_problem(value)
        if problem is not None:
            raise ValueError(f"label rule path {value[:80]!r} {problem}")
        return value

    @field_validator("categories", "subjects", "handling_constraints")
    @classmethod
    def _sorted(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _names(value, "label rule")


class EgressTarget(_Strict):
    """A named destination for model calls and what it may receive."""

    remote: bool = Field(default=True, description="Whether the target leaves this machine.", examples=[True])
    max_class: ClassName = Field(
        default="public", description="Highest privacy class the target may receive.", examples=["internal"]
    )
    allowed_categories: tuple[str, ...] | None = Field(
        default=None, description="If set, every category of the material must be listed.", examples=[["source-code"]]
    )
    allowed_subjects: tuple[str, ...] | None = Field(
        default=None, description="If set, every subject of the material must be listed.", examples=[["lychd-core"]]
    )
    allow_unknown_lineage: bool = Field(
        default=False, description="Whether material of unknown lineage may pass (default no).", examples=[False]
    )
    blocking_constraints: tuple[str, ...] = Field(
        default=(LOCAL_ONLY,),
        description="Handling constraints that refuse the material; 'local-only' always blocks a remote target.",
        examples=[["local-only", "no-training"]],
    )

    @field_validator("allowed_categories", "allowed_subjects")
    @classmethod
    def _sorted_optional(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if value is None else _names(value, "egress target")

    @field_validator("blocking_constraints")
    @classmethod
    def _sorted(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _names(value, "egress target")

    @property
    def privacy_class(self) -> PrivacyClass:
        return class_of(self.max_class)

    @property
    def blocks(self) -> frozenset[str]:
        """Constraints that refuse material here (``local-only`` is added for a remote target)."""
        return frozenset(self.blocking_constraints) | ({LOCAL_ONLY} if self.remote else frozenset())


LOCAL = EgressTarget(remote=False, max_class="restricted", allow_unknown_lineage=True, blocking_constraints=())
"""The built-in target: a local model that may see everything (nothing breaks without config)."""


class EgressConfig(_Strict):
    """Named egress targets and which one a call uses when it names none."""

    default_target: str = Field(
        default=LOCAL_TARGET,
        min_length=1,
        description="Target used when a call names none; 'local' is built in and admits everything.",
        examples=["local"],
    )
    targets: dict[str, EgressTarget] = Field(
        default_factory=dict,
        description="Named targets; 'local' may be redefined.",
        examples=[{"hosted": {"remote": True, "max_class": "public"}}],
    )

    @model_validator(mode="after")
    def _default_exists(self) -> EgressConfig:
        if self.default_target != LOCAL_TARGET and self.default_target not in self.targets:
            known = ", ".join(sorted({LOCAL_TARGET, *self.targets}))
            raise ValueError(f"default_target {self.default_target!r} is not a target (known: {known})")
        return self

    def target(self, name: str | None) -> tuple[str, EgressTarget]:
        """The named target (``None``: the default); an unknown or empty name is refused naming the known ones."""
        if name is None:
            name = self.default_target
        if name in self.targets:
            return name, self.targets[name]
        if name == LOCAL_TARGET:
            return name, LOCAL
        known = ", ".join(sorted({LOCAL_TARGET, *self.targets}))
        raise UnknownTargetError(f"egress target {name!r} is not configured (known: {known})")
