"""Memory scope: (project, workspace, repository, actor, role).

A record field set to ``None`` is *broader*: it applies to any value. A query scope
matches a record when every non-``None`` record field equals the query's field, so a
record scoped to a repository never leaks into a query that does not name that
repository. Specificity is the number of non-``None`` record fields.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeAlias

from lychd_core.errors import MemoryRecordError, NonCanonicalError

SCOPE_FIELDS: tuple[str, ...] = ("project", "workspace", "repository", "actor", "role")
MAX_SCOPE_CHARS = 200

ScopeKey: TypeAlias = tuple[str | None, str | None, str | None, str | None, str | None]


def _check_value(name: str, value: object) -> str | None:
    if value is None:
        return None
    if (
        not isinstance(value, str)
        or not value
        or len(value) > MAX_SCOPE_CHARS
        or value != value.strip()
        or not value.isprintable()
    ):
        raise NonCanonicalError(
            f"scope {name} must be None (broader) or 1-{MAX_SCOPE_CHARS} printable characters without "
            f"surrounding whitespace, got {value!r}"
        )
    return value


class ScopePolicy(StrEnum):
    """Which record scopes a query's scope admits."""

    INCLUDE_BROADER = "include-broader"
    """A record applies when each field it names equals the query's (unnamed fields widen):
    a project-wide memory applies inside every repository of the project. The default."""
    EXACT = "exact"
    """A record applies only when its scope equals the query's, field for field (the reference's policy)."""


@dataclass(frozen=True, slots=True)
class MemoryScope:
    """Where a memory applies (on a record) or where a query is asked (on a query)."""

    project: str | None = None
    workspace: str | None = None
    repository: str | None = None
    actor: str | None = None
    role: str | None = None
    _key: ScopeKey = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in SCOPE_FIELDS:
            _check_value(name, getattr(self, name))
        object.__setattr__(self, "_key", (self.project, self.workspace, self.repository, self.actor, self.role))

    @property
    def key(self) -> ScopeKey:
        return self._key

    @property
    def specificity(self) -> int:
        """Number of named (non-``None``) fields, 0..5."""
        return sum(value is not None for value in self.key)

    @property
    def is_empty(self) -> bool:
        return self.specificity == 0

    def applies_to(self, query: MemoryScope) -> bool:
        """Whether a record with this scope is compatible with the ``query`` scope (exact or broader)."""
        return all(mine is None or mine == theirs for mine, theirs in zip(self.key, query.key, strict=True))

    def compatible_keys(self, policy: ScopePolicy = ScopePolicy.INCLUDE_BROADER) -> frozenset[ScopeKey]:
        """Every record scope key that applies to this query scope: under ``include-broader``
        each named field kept or widened to None; under ``exact`` only this scope's own key."""
        if policy is ScopePolicy.EXACT:
            return frozenset({self.key})
        choices = [(value, None) if value is not None else (None,) for value in self.key]
        return frozenset(itertools.product(*choices))  # type: ignore[arg-type]

    def to_json(self) -> dict[str, str | None]:
        return dict(zip(SCOPE_FIELDS, self.key, strict=True))

    @classmethod
    def from_json(cls, data: object, where: str = "scope") -> MemoryScope:
        if not isinstance(data, Mapping):
            raise MemoryRecordError(f"{where} must be an object with keys {', '.join(SCOPE_FIELDS)}, got {data!r}")
        unknown = sorted(set(data) - set(SCOPE_FIELDS))
        if unknown:
            raise MemoryRecordError(f"{where} has unknown keys {unknown}; allowed: {', '.join(SCOPE_FIELDS)}")
        values: dict[str, Any] = {name: data.get(name) for name in SCOPE_FIELDS}
        return cls(**values)
