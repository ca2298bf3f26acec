"""Stage 2, rank: order the floor's optional Codex blocks by relevance to the query and
plan their views (full, signatures, names) against the room optional material has.

The room is what the budget leaves after the required floor, the query and the
continuation; ranking never moves a required block.
"""

from __future__ import annotations

from collections.abc import Sequence

from lychd_core.assembly.bounds import AssemblyBounds
from lychd_core.assembly.nodes import Tokens, room_chars
from lychd_core.assembly.stages.project import ProjectedFloor
from lychd_core.blocks import Layer
from lychd_core.config import LychdConfig
from lychd_core.history import Message
from lychd_core.ranking import RankedFloor, rank_floor, ranking_query
from lychd_core.registry import Registry


def optional_room(bounds: AssemblyBounds, projected: ProjectedFloor, tokens: Tokens, required_text: int) -> int:
    """Characters left for optional material: the smaller of the character cap and what the
    token budget holds, less the required floor and ``required_text`` (query, continuation)."""
    blocks = projected.floor.blocks
    room = min(bounds.char_cap, room_chars(bounds.budget.usable, blocks, tokens))
    return room - required_text - projected.floor.required_chars()


def rank_stage(
    config: LychdConfig,
    registry: Registry,
    query: str,
    history: Sequence[Message],
    projected: ProjectedFloor,
    room: int,
) -> RankedFloor:
    """The floor as placements (block, required, relevance, exclusive group), ranked and planned."""
    floor = projected.floor
    if not config.ranking.profiles or not any(p.block.layer is Layer.CODEX and not p.required for p in floor.entries):
        # nothing to rank, as rank_floor would find: the ranking query (history text,
        # required paths) is not built for it
        return RankedFloor(tuple(floor.entries))
    seed = ranking_query(config, query, history, floor.entries)
    return rank_floor(config, registry, seed, floor.entries, projected.facts, room, projected.alternates)
