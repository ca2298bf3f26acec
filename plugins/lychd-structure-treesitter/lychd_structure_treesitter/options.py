"""Options shared by the tree-sitter structure profiles: which parts of the outline to emit."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class StructureTreeSitterOptions(BaseModel):
    """Each field selects one part of the outline; the facts carry exactly the same parts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    include_imports: bool = Field(
        default=True,
        description="List imports (import/use/package statements), one line each.",
        examples=[True],
    )
    members: Literal["none", "all"] = Field(
        default="all",
        description="Members of classes, structs, interfaces, traits, enums and impl blocks: none, or all "
        "(their signatures, bodies elided).",
        examples=["all"],
    )
    doc_lines: int = Field(
        default=3,
        ge=0,
        le=50,
        strict=True,
        description="Lines of a declaration's leading doc comment to keep (JSDoc/Javadoc /** */, Go // above, "
        "Rust ///); 0 leaves docs out. A longer comment ends with a marked '…'.",
        examples=[3],
    )
    max_signature_chars: int = Field(
        default=240,
        ge=40,
        le=10_000,
        strict=True,
        description="Characters of one signature line (whitespace collapsed); a longer one ends with a marked '…'.",
        examples=[240],
    )
    include_line_numbers: bool = Field(
        default=True,
        description="Source line of each outlined item (// L<n> in the text, 'line' in the facts).",
        examples=[True],
    )
