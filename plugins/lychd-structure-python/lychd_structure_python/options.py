"""Options of ``structure.python`` revision 1: which parts of the outline to emit."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class StructurePythonOptions(BaseModel):
    """Each field selects one part of the outline; the facts carry exactly the same parts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    module_docstring: Literal["none", "summary", "full"] = Field(
        default="summary",
        description="Module docstring: left out, its first paragraph, or all of it (cleaned like inspect.cleandoc).",
        examples=["summary"],
    )
    include_imports: bool = Field(
        default=True,
        description="List module-level imports (including those inside module-level if/try blocks, "
        "marked conditional).",
        examples=[True],
    )
    include_public_symbols: bool = Field(
        default=True,
        description="State the declared public symbols: a literal __all__ when present, else the "
        "non-underscore names defined at module level.",
        examples=[True],
    )
    definitions: Literal["none", "declared", "public", "all"] = Field(
        default="declared",
        description="Top-level functions and classes to outline: none; the declared public ones (__all__ when "
        "it is a literal, else non-underscore names); every non-underscore one whatever __all__ says; or all.",
        examples=["declared"],
    )
    methods: Literal["none", "public", "all"] = Field(
        default="public",
        description="Members of outlined classes (methods, nested classes, annotated attributes): none; public "
        "ones (no leading underscore, or dunder); or all.",
        examples=["public"],
    )
    include_signatures: bool = Field(
        default=True,
        description="Parameters (kinds, annotations) and return annotations of functions.",
        examples=[True],
    )
    include_defaults: bool = Field(
        default=True,
        description="Default values of parameters and annotated class attributes.",
        examples=[True],
    )
    include_decorators: bool = Field(default=True, description="Decorators of functions and classes.", examples=[True])
    include_bases: bool = Field(default=True, description="Base classes and class keywords.", examples=[True])
    include_attributes: bool = Field(
        default=True, description="Annotated attributes declared in class bodies (x: int = 0).", examples=[True]
    )
    include_line_numbers: bool = Field(
        default=True,
        description="Source line of each outlined item (# L<n> in the text, 'line' in the facts).",
        examples=[True],
    )
