"""Verbatim material falling back to its structure outline, declared, never cut.

Where a structure profile covers a verbatim file's media type, the projector gives that
profile's outline of the same bytes (:mod:`lychd_core.projection.alternate`). Here it
becomes the verbatim node's coarser resolutions: ``outline``, then whatever coarser views
the structure profile offers of its own output (``signatures``, ``names``), each a node
of the verbatim node's key family and exclusive group, each declaring that the verbatim
text was dropped and by which profile it was replaced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lychd_core.blocks import Block, Omission
from lychd_core.families import PluginFamily
from lychd_core.ranking.resolutions import MAX_RESOLUTIONS, checked_resolutions, offer_of
from lychd_core.registry import Registry

if TYPE_CHECKING:
    from lychd_core.projection.projector import Contribution

OUTLINE = "outline"


def verbatim_fallbacks(
    registry: Registry, block: Block, alternate: Contribution, query_terms: frozenset[str], notes: list[str]
) -> list[Block]:
    """The structure views of verbatim ``block``, finest first (empty when none is shorter)."""
    outline = alternate.block
    pin = alternate.profile_pin or ""
    if outline is None or not pin:
        return []
    offered: list[tuple[str, str]] = [(OUTLINE, outline.text)]
    try:
        profile = registry.lookup(PluginFamily.PROJECTION_PROFILE, pin.rsplit("@", 1)[0]).obj
    except LookupError:
        profile = None
    offer = offer_of(profile)
    if offer is not None:
        try:
            raw = offer(alternate.facts, query_terms)
        except Exception as exc:  # the outline alone is still a valid fallback
            notes.append(f"{block.key}: {pin} resolutions raised {type(exc).__name__}: {exc}; the outline only")
            raw = ()
        coarser = checked_resolutions(outline, raw)
        if isinstance(coarser, str):
            notes.append(f"{block.key}: {pin} resolutions refused ({coarser}); the outline only")
        else:
            offered.extend(coarser[: MAX_RESOLUTIONS - 1])
    checked = checked_resolutions(block, tuple(offered))
    if isinstance(checked, str):  # cannot happen for pairs built here; kept as the contract's guard
        notes.append(f"{block.key}: structure fallback refused ({checked})")
        return []
    return [fallback_block(block, outline, pin, name, text) for name, text in checked]


def fallback_block(verbatim: Block, outline: Block, pin: str, name: str, text: str) -> Block:
    """One structure view standing in for ``verbatim``: same key family, label and sources;
    the dropped verbatim text declared as an omission."""
    view = "its outline" if name == OUTLINE else f"the {name} of its outline"
    omission = Omission(
        kind=f"verbatim-to-{name}",
        reason=(
            f"the verbatim text of {verbatim.key} ({len(verbatim.text):,} characters) is not shown: {view} "
            f"by {pin} of the same bytes ({len(text):,} characters) stands in; bodies and statements omitted"
        ),
    )
    lineage = verbatim.lineage.model_copy(
        update={
            "profile": pin,
            "parser_version": outline.lineage.parser_version,
            "omissions": (*outline.lineage.omissions, omission),
        }
    )
    return Block(layer=verbatim.layer, key=f"{verbatim.key}#{name}", text=text, label=verbatim.label, lineage=lineage)
