"""``compress.verbatim-to-structure`` revision 1: a verbatim Python block becomes its outline.

A repository source whose text parses as a Python module is replaced by the
``structure.python`` revision 1 outline of the same text (signatures, classes, imports,
docstrings' first lines); function bodies and statements are the declared omission. Text
that does not parse as Python is left alone, never guessed at.
"""

from __future__ import annotations

from typing import ClassVar

from lychd_structure_python import PROFILE, StructurePythonOptions
from pydantic import BaseModel, ConfigDict

from lychd_compressors.proposal import whole_sources_proposal
from lychd_core.blocks import Omission
from lychd_core.digests import sha256_digest
from lychd_core.families import CompactionProposal, CompactionRequest, CompactionSource, Projected, SourceMaterial
from lychd_core.vocabulary import ContextClass, Provenance


class VerbatimToStructureOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VerbatimToStructure:
    name: ClassVar[str] = "compress.verbatim-to-structure"
    revision: ClassVar[int] = 1
    options_model: ClassVar[type[BaseModel]] = VerbatimToStructureOptions
    preserves_trust: ClassVar[bool] = True
    """The outline is parsed from the exact text: every line it shows is in the source."""

    def propose(self, request: CompactionRequest, options: BaseModel) -> tuple[CompactionProposal, ...]:
        proposals = []
        for source in request.sources:
            if source.context_class is ContextClass.SOURCE and source.provenance is Provenance.REPOSITORY:
                proposal = self._outline(request, source)
                if proposal is not None:
                    proposals.append(proposal)
        return tuple(proposals)

    def _outline(self, request: CompactionRequest, source: CompactionSource) -> CompactionProposal | None:
        if "def " not in source.content and "class " not in source.content:
            return None  # no structure to show: the outline would not be shorter
        data = source.content.encode("utf-8")
        material = SourceMaterial(
            path=source.node_id,
            media_type="text/x-python",
            data=data,
            digest=sha256_digest(data),
            max_bytes=len(data),
            max_chars=request.max_chars,
        )
        outcome = PROFILE.project(material, StructurePythonOptions())
        if not isinstance(outcome, Projected) or not outcome.text or len(outcome.text) >= len(source.content):
            return None
        omission = Omission(
            kind="structure-only",
            first_line=1,
            last_line=max(1, source.content.count("\n") + 1),
            reason=f"function bodies and statements replaced by the {PROFILE.name}@{PROFILE.revision} outline",
        )
        return whole_sources_proposal(
            request,
            f"structure:{source.node_id}",
            outcome.text,
            [source],
            (f"outline by {PROFILE.name}@{PROFILE.revision} of the exact text", "names and signatures verbatim"),
            (omission,),
        )


VERBATIM_TO_STRUCTURE = VerbatimToStructure()
