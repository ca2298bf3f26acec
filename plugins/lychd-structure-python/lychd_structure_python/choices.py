"""The outline's options as the parser worker sees them, without pydantic.

The parser worker is a fresh interpreter for every cold run; importing pydantic and
the core there cost about as much CPU as importing libcst (issue 30). The caller has
already validated the options with :class:`~lychd_structure_python.options.StructurePythonOptions`
and sends them as JSON; the worker rebuilds them as :class:`OutlineChoices`, which has
the same fields and defaults (a test holds them equal) and refuses any other name.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal, Protocol


class OutlineOptions(Protocol):
    """What the outline code reads; both :class:`OutlineChoices` and the pydantic model provide it."""

    @property
    def module_docstring(self) -> Literal["none", "summary", "full"]: ...
    @property
    def include_imports(self) -> bool: ...
    @property
    def include_public_symbols(self) -> bool: ...
    @property
    def definitions(self) -> Literal["none", "declared", "public", "all"]: ...
    @property
    def methods(self) -> Literal["none", "public", "all"]: ...
    @property
    def include_signatures(self) -> bool: ...
    @property
    def include_defaults(self) -> bool: ...
    @property
    def include_decorators(self) -> bool: ...
    @property
    def include_bases(self) -> bool: ...
    @property
    def include_attributes(self) -> bool: ...
    @property
    def include_line_numbers(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class OutlineChoices:
    """Plain, already validated option values (see the module docstring)."""

    module_docstring: Literal["none", "summary", "full"] = "summary"
    include_imports: bool = True
    include_public_symbols: bool = True
    definitions: Literal["none", "declared", "public", "all"] = "declared"
    methods: Literal["none", "public", "all"] = "public"
    include_signatures: bool = True
    include_defaults: bool = True
    include_decorators: bool = True
    include_bases: bool = True
    include_attributes: bool = True
    include_line_numbers: bool = True

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OutlineChoices:
        """The options the caller sent; ``ValueError`` naming any field this worker does not know."""
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown structure.python options {unknown}; known: {sorted(known)}")
        return cls(**data)
