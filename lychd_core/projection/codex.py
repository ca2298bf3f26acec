"""A projection's Codex block, built from values already checked, without validating them again.

Both callers hold values of exactly the types the models declare: the projector's fresh
outcomes passed the family contract (``outcomes.checked``: a ``str`` text, ``Omission``
values) beside a validated reference and the label rules' own label; a run record's
values come back under its MAC, written from such outcomes. Validation would only copy
them (about 20 µs per block, the content hash among it, which a run record already
holds). The fields are set the way unpickling sets them; a property test holds the
result equal, field for field and with the same fields set, to the validated models.

Kept under issue 26's rule (a trick stays only where a benchmark shows it moves a goal by
5% or more): with validated models instead, ``benchmarks/bench_projection.py``'s warm run
(the cold / warm goal, and tree-sitter's, 56.9x against >= 50) took 7-16% longer on 300
files (best of 31 runs) and 28-55% on 150 (docs/performance.md, "Readability tricks").
"""

from __future__ import annotations

from pydantic import BaseModel

from lychd_core.blocks import Block, Layer, Lineage, Omission
from lychd_core.labels import PrivatizationLabel

_set = object.__setattr__
_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__  # the slots' own setters: no name lookup
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_LINEAGE_FIELDS = frozenset(Lineage.model_fields)
_BLOCK_FIELDS = frozenset(Block.model_fields)
_CODEX = Layer.CODEX


def codex_block(
    source: str,
    digest: str,
    pin: str,
    parser_version: str,
    omissions: tuple[Omission, ...],
    tags: tuple[str, ...],
    text: str,
    content_hash: str,
    label: PrivatizationLabel,
) -> Block:
    """``Block(layer=CODEX, key="codex:<source>:<pin>", text, label, lineage=Lineage(...))`` with
    ``content_hash`` (the text's digest) given rather than computed."""
    lineage = Lineage.__new__(Lineage)
    _set(
        lineage,
        "__dict__",
        {
            "source_path": source,
            "source_digests": (digest,),
            "profile": pin,
            "parser_version": parser_version,
            "omissions": omissions,
            "tags": tags,
        },
    )
    _set_fields(lineage, set(_LINEAGE_FIELDS))
    _set_extra(lineage, None)
    _set_private(lineage, None)
    block = Block.__new__(Block)
    fields = {"layer": _CODEX, "key": f"codex:{source}:{pin}", "text": text, "label": label, "lineage": lineage}
    _set(block, "__dict__", fields)
    _set_fields(block, set(_BLOCK_FIELDS))
    _set_extra(block, None)
    _set_private(block, {"_content_hash": content_hash})
    return block
