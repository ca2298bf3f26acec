"""``ContextNode``: one bounded, attributed piece of context and its checked constructor."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from lychd_core.digests import sha256_digest
from lychd_core.errors import GraphError
from lychd_core.graph.budget import MAX_INT
from lychd_core.vocabulary import (
    Authority,
    ContextClass,
    Provenance,
    Requirement,
    Trust,
    ceiling_violation,
    parse_token,
    tokens,
)

MAX_CONTENT_BYTES = 16 * 1024 * 1024
"""Largest UTF-8 content of one node; a bigger node could never be budgeted honestly."""

MAX_RELEVANCE = 2**31 - 1
"""Largest relevance. The ranking stage derives it from the ranked order (higher first)."""

MAX_ID_CHARS = 1024
"""Longest node id (and role name in ``visible_to``)."""

_E = TypeVar("_E", bound=Enum)

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

_ENUM_FIELDS: tuple[tuple[str, type], ...] = (
    ("provenance", Provenance),
    ("authority", Authority),
    ("trust", Trust),
    ("context_class", ContextClass),
    ("requirement", Requirement),
)


def check_name(what: str, value: object) -> str:
    """A node id or role name: non-empty, bounded, UTF-8, no control characters or edge spaces."""
    if not isinstance(value, str) or not value:
        raise GraphError(f"{what} must be a non-empty string, got {value!r}")
    if len(value) > MAX_ID_CHARS:
        raise GraphError(f"{what} {value[:40]!r}... has {len(value)} characters; at most {MAX_ID_CHARS} are allowed")
    if value != value.strip() or _CONTROL.search(value):
        raise GraphError(f"{what} {value!r} must not contain control characters or surrounding whitespace")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise GraphError(f"{what} {value!r} is not valid Unicode text (lone surrogate)") from None
    return value


@dataclass(frozen=True, slots=True)
class ContextNode:
    """An immutable node of a context graph. Build it with :meth:`create`, which also takes
    enum spellings and any collection; the constructor itself takes members and canonical
    tuples. Either way ``__post_init__`` checks every field, once.

    ``digest`` (sha256 of the UTF-8 content) and ``byte_size`` are derived, never passed.
    Authority and trust are checked against the provenance ceilings; prose in the
    content never changes them.
    """

    id: str
    content: str = field(repr=False)
    provenance: Provenance
    authority: Authority
    trust: Trust
    context_class: ContextClass
    requirement: Requirement
    priority: int
    token_estimate: int
    recency: int
    visible_to: frozenset[str] | None
    dependencies: tuple[str, ...]
    relevance: int = 0
    """Query-aware relevance, higher first (0: unranked); orders optional roots ahead of recency."""
    exclusive_group: str | None = None
    """Nodes sharing a group are alternatives (resolutions of one material): at most one is selected."""
    digest: str = field(init=False)
    byte_size: int = field(init=False)

    @classmethod
    def create(
        cls,
        *,
        id: str,
        content: str,
        provenance: Provenance | str,
        authority: Authority | str,
        trust: Trust | str,
        context_class: ContextClass | str,
        requirement: Requirement | str,
        token_estimate: int,
        priority: int = 0,
        recency: int = 0,
        visible_to: Iterable[str] | None = None,
        dependencies: Iterable[str] = (),
        relevance: int = 0,
        exclusive_group: str | None = None,
    ) -> ContextNode:
        """The checked constructor; raises ``GraphError`` naming the node and the problem.

        Enum fields take a member or its JSON spelling (``"repository"``,
        ``"non-authoritative"``); ``visible_to`` and ``dependencies`` take any collection
        of names in any order, kept sorted and duplicate-free (as ``MemoryRecord`` does).
        It converts (refusing what it cannot); ``__post_init__`` checks every field, once."""
        where = f"node {id!r}" if isinstance(id, str) else "node"
        if visible_to is not None and not isinstance(visible_to, (str, bytes)):
            visible_to = frozenset(_iterated(where, "visible_to", visible_to))
        if not isinstance(dependencies, (str, bytes)):
            dependencies = _canonical_names(where, "dependencies", dependencies)
        return cls(
            id=id,
            content=content,
            provenance=_member(where, "provenance", Provenance, provenance),
            authority=_member(where, "authority", Authority, authority),
            trust=_member(where, "trust", Trust, trust),
            context_class=_member(where, "context_class", ContextClass, context_class),
            requirement=_member(where, "requirement", Requirement, requirement),
            priority=priority,
            token_estimate=token_estimate,
            recency=recency,
            visible_to=visible_to,  # type: ignore[arg-type]
            dependencies=dependencies,  # type: ignore[arg-type]
            relevance=relevance,
            exclusive_group=exclusive_group,
        )

    def __post_init__(self) -> None:
        node_id = check_name("node id", self.id)
        where = f"node {node_id!r}"
        self._check_kind(where, _ENUM_FIELDS)
        data = self._checked_content(where)
        for name, low, high in _INT_FIELDS:
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:  # the common case is one test
                _check_int(where, name, value, low, high)
        if self.exclusive_group is not None:
            check_name(f"{where}: exclusive_group", self.exclusive_group)
            if self.requirement is not Requirement.OPTIONAL:
                raise GraphError(f"{where}: only optional nodes may belong to an exclusive_group")
        self._check_visible_to(where)
        self._check_dependencies(where)
        self._seal(data)

    def _check_kind(self, where: str, enum_fields: tuple[tuple[str, type], ...]) -> None:
        """The enum fields named have their types, and authority and trust stay under the provenance's ceilings."""
        for name, enum_type in enum_fields:
            if not isinstance(getattr(self, name), enum_type):
                raise GraphError(f"{where}: {name} must be a {enum_type.__name__}, got {getattr(self, name)!r}")
        problem = ceiling_violation(self.provenance, self.authority, self.trust)
        if problem:
            raise GraphError(f"{where}: {problem}")

    def _seal(self, data: bytes) -> None:
        """Set what is derived from the checked content's UTF-8 bytes: its digest and size."""
        object.__setattr__(self, "digest", sha256_digest(data))
        object.__setattr__(self, "byte_size", len(data))

    def _checked_content(self, where: str) -> bytes:
        content = self.content
        if not isinstance(content, str) or not content:
            raise GraphError(f"{where}: content must be a non-empty string")
        if len(content) > MAX_CONTENT_BYTES:
            raise GraphError(f"{where}: content has {len(content)} characters; at most {MAX_CONTENT_BYTES} bytes fit")
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise GraphError(
                f"{where}: content is not valid Unicode text (lone surrogate at character {exc.start}); "
                "decode the source as UTF-8 first"
            ) from None
        if len(data) > MAX_CONTENT_BYTES:
            raise GraphError(f"{where}: content has {len(data)} UTF-8 bytes; at most {MAX_CONTENT_BYTES} are allowed")
        return data

    def _check_visible_to(self, where: str) -> None:
        roles = self.visible_to
        if roles is None:
            return
        if not isinstance(roles, frozenset):
            raise GraphError(f"{where}: visible_to must be None or a frozenset of role names, got {roles!r}")
        for role in roles:
            check_name(f"{where}: visible_to role", role)

    def _check_dependencies(self, where: str) -> None:
        deps = self.dependencies
        if not isinstance(deps, tuple):
            raise GraphError(f"{where}: dependencies must be a tuple of node ids, got {deps!r}")
        previous = None
        for dep in deps:
            if not isinstance(dep, str) or not dep:
                raise GraphError(f"{where}: dependencies must list node ids (non-empty strings), got {dep!r}")
            if dep == self.id:
                raise GraphError(f"{where}: a node may not depend on itself")
            if previous is not None and dep <= previous:
                problem = "duplicate" if dep == previous else "unsorted"
                raise GraphError(
                    f"{where}: dependencies must be sorted and unique ({problem} {dep!r} after {previous!r}); "
                    f"write them as {sorted(set(deps))!r}"
                )
            previous = dep

    @property
    def chars(self) -> int:
        """Characters of content (the unit of the character bound)."""
        return len(self.content)

    def with_dependencies(self, dependencies: Iterable[str]) -> ContextNode:
        """This node depending on ``dependencies`` instead: a sorted, duplicate-free collection of
        node ids (checked as the constructor checks them)."""
        return dataclasses.replace(self, dependencies=tuple(dependencies))


_INT_FIELDS = (
    ("token_estimate", 1, MAX_INT),
    ("priority", -MAX_INT - 1, MAX_INT),
    ("recency", 0, MAX_INT),
    ("relevance", 0, MAX_RELEVANCE),
)


def _member(where: str, name: str, enum_type: type[_E], value: object) -> _E:
    """``value`` if it is a member of ``enum_type``, else the member it spells; a typed error naming the spellings."""
    if isinstance(value, enum_type):
        return value
    member = parse_token(enum_type, value)
    if member is None:
        raise GraphError(f"{where}: {name} {value!r} is not one of {', '.join(tokens(enum_type))}")
    return member


def _canonical_names(where: str, name: str, value: object) -> tuple[str, ...]:
    """Any collection of names as a sorted, duplicate-free tuple (the node checks each name)."""
    items = list(_iterated(where, name, value))
    try:
        return tuple(sorted(set(items)))
    except TypeError:  # an unhashable item, or items that do not compare: not all names
        bad = next(item for item in items if not isinstance(item, str))
        raise GraphError(f"{where}: {name} must list node ids (strings), got {type(bad).__name__} {bad!r}") from None


def _iterated(where: str, name: str, value: object) -> Iterable[Any]:
    """``value`` if it can be iterated; a typed error naming the field if not (``None``, a number, ...)."""
    if not isinstance(value, Iterable):
        raise GraphError(f"{where}: {name} must be a collection of strings, got {type(value).__name__}")
    return value


def _check_int(where: str, name: str, value: object, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise GraphError(f"{where}: {name} must be an integer, got {type(value).__name__} {value!r}")
    if not low <= value <= high:
        raise GraphError(f"{where}: {name} must be between {low} and {high}, got {value}")
