"""Stage 1, project: the request's floor inputs become one ``Floor``.

Identity blocks, then the Codex (given blocks and projected material references, in the
order given), the environment snapshot, then Karma. A reference that cannot project, or
projects to nothing, is reported, not fatal; a named file that fails stops the run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lychd_core.assembly.bounds import AssemblyBounds, reserve_required
from lychd_core.assembly.context import Unexplained
from lychd_core.assembly.floor import Floor
from lychd_core.assembly.request import AssemblyRequest
from lychd_core.blocks import Block, Layer
from lychd_core.digests import JsonValue
from lychd_core.errors import AssemblyError
from lychd_core.projection.alternate import structure_alternates
from lychd_core.projection.materials import MaterialRef
from lychd_core.projection.projector import Contribution, Projector


@dataclass(frozen=True)
class ProjectedFloor:
    """The floor, the facts each projected block carries (for ranking), each verbatim block's
    structure outline (a coarser view ranking may offer) and what could not be used."""

    floor: Floor
    facts: dict[str, JsonValue] = field(default_factory=dict)
    alternates: dict[str, Contribution] = field(default_factory=dict)
    unusable: tuple[Unexplained, ...] = ()


def refuse_early(
    bounds: AssemblyBounds,
    request: AssemblyRequest,
    environment: Block,
    continuation_text: str,
) -> None:
    """Refuse by budget before projecting anything when the required parts already known
    cannot fit: the given floor blocks and environment, the query and the continuation
    (material references add to the Codex once projected, so this never overstates)."""
    cpt = bounds.chars_per_token

    def measured(texts: Sequence[str]) -> tuple[int, int]:
        return sum(map(len, texts)), sum(-(-len(text) // cpt) for text in texts)

    def blocks(items: Sequence[object]) -> tuple[int, int]:
        return measured([item.text for item in items if isinstance(item, Block)])  # others are refused later

    known = {
        "identity": blocks(request.identity),
        "codex": blocks(request.codex),
        "environment": measured([environment.text]),
        "karma": blocks(request.karma),
        "query": measured([request.query]),
        "continuation": measured([continuation_text]),
    }
    if sum(chars for chars, _ in known.values()) > bounds.char_cap:
        reserve_required(bounds, {name: chars for name, (chars, _) in known.items()}, sum(t for _, t in known.values()))


def check_layers(identity: Sequence[Block], karma: Sequence[Block]) -> None:
    for name, blocks, layer in (("identity", identity, Layer.IDENTITY), ("karma", karma, Layer.KARMA)):
        for block in blocks:
            if not isinstance(block, Block) or block.layer is not layer:
                raise AssemblyError(f"{name} takes layer {layer.name} Blocks, got {block!r:.80}")


def project_floor(
    identity: Sequence[Block],
    codex: Sequence[MaterialRef | Block],
    karma: Sequence[Block],
    environment: Block,
    projector: Callable[[], Projector],
    *,
    with_alternates: bool,
    progress: Callable[[int], None] | None = None,
) -> ProjectedFloor:
    """Project the material references and order every floor block; ``projector`` is asked
    for only when there is material to project."""
    check_layers(identity, karma)
    refs = [item for item in codex if isinstance(item, MaterialRef)]
    contributions = projector().project_many(refs, progress=progress) if refs else []
    alternates = structure_alternates(projector(), contributions) if contributions and with_alternates else {}
    pairs: list[tuple[Block, bool]] = [(block, True) for block in identity]
    facts: dict[str, JsonValue] = {}
    unusable: list[Unexplained] = []
    projected = iter(contributions)
    for item in codex:
        if isinstance(item, Block):
            if item.layer is not Layer.CODEX:
                raise AssemblyError(f"codex takes layer CODEX Blocks, got {item.layer.name} block {item.key!r}")
            pairs.append((item, True))
            continue
        contribution = next(projected)
        if contribution.block is None:
            unusable.append(Unexplained(f"codex:{item.source}", f"projection unavailable: {contribution.unavailable}"))
        elif not contribution.block.text:
            unusable.append(Unexplained(contribution.block.key, "empty: the projection has no text to show"))
        else:
            pairs.append((contribution.block, item.required))
            facts[contribution.block.key] = contribution.facts
    pairs.append((environment, True))
    pairs += [(block, True) for block in karma]
    floor = Floor.of(pairs)
    check_keys(floor)
    return ProjectedFloor(floor, facts, alternates, tuple(unusable))


def check_keys(floor: Floor) -> None:
    """Every floor block has text and a key of its own."""
    empty = [block.key for block in floor.blocks if not block.text]
    if empty:
        raise AssemblyError(f"floor blocks need text; empty: {', '.join(empty)}")
    duplicates = sorted(key for key, count in Counter(block.key for block in floor.blocks).items() if count > 1)
    if duplicates:
        raise AssemblyError(f"floor block keys must be unique; repeated: {', '.join(duplicates)}")
