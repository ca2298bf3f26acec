"""The ranking stage of assembly: rank optional Codex material, offer coarser resolutions.

Input: the floor blocks in order, which are required, and the projection facts of
each optional projected block. Output: the same floor with coarser resolutions inserted
after their full block, and for every floor block its relevance and exclusive group.
With no ranking profiles configured nothing changes (every relevance 0, no groups).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lychd_core.blocks import Block, Layer
from lychd_core.digests import JsonValue
from lychd_core.families import PluginFamily, RankingCandidate, RankingQuery
from lychd_core.history import Message
from lychd_core.ranking.engine import RankingReport, WeightedProfile, rank_or_fallback
from lychd_core.ranking.fallback import verbatim_fallbacks
from lychd_core.ranking.plan import ViewPlan, plan_views, view_relevance
from lychd_core.ranking.resolutions import checked_resolutions, offer_of, resolution_block
from lychd_core.ranking.terms import terms
from lychd_core.registry import Registry

if TYPE_CHECKING:
    from lychd_core.config import LychdConfig
    from lychd_core.projection.projector import Contribution

MAX_HISTORY_CHARS = 20_000
"""History seeds ranking through its newest messages, at most this many characters."""


@dataclass(frozen=True, slots=True)
class Placement:
    """One floor block as the graph will see it."""

    block: Block
    required: bool
    relevance: int = 0
    group: str | None = None


@dataclass(frozen=True, slots=True)
class RankedFloor:
    """The floor after ranking, and the report (``None`` when no profile is configured)."""

    placements: tuple[Placement, ...]
    report: RankingReport | None = None
    notes: tuple[str, ...] = field(default=())
    resolutions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Full block key -> the keys of its coarser resolutions, finest first."""
    short: Mapping[str, str] = field(default_factory=dict)
    """Full block key -> why its full projection was not planned (what it needed, what remained)."""
    unscored: Mapping[str, str] = field(default_factory=dict)
    """Full block key of a score-0 file planned a view -> that it only had the room scored files left."""
    plan: ViewPlan | None = None
    """The planned views, files in rank order (``None`` when nothing was planned)."""


def weighted_profiles(config: LychdConfig, registry: Registry) -> list[WeightedProfile]:
    """The configured ranking profiles, resolved against the registry (pins enforced here)."""
    resolved = []
    for pin in config.ranking.profiles:
        plugin = registry.resolve(PluginFamily.RANKING_PROFILE, pin.name, pin.revision)
        options = plugin.obj.options_model.model_validate(pin.options)
        resolved.append(WeightedProfile(plugin.pin, pin.weight, plugin.obj, options))
    return resolved


def ranking_query(
    config: LychdConfig, text: str, history: Sequence[Message], floor: Sequence[Placement]
) -> RankingQuery:
    """The query ranking sees: its text, the newest history messages' text, the required files."""
    texts: list[str] = []
    count = config.ranking.history_messages
    for message in history[len(history) - count :] if count else ():
        parts = message.get("parts") if isinstance(message, Mapping) else None
        for part in parts if isinstance(parts, list) else ():  # hostile history: parts may be null or a number
            content = part.get("content") if isinstance(part, Mapping) else None
            if isinstance(content, str):
                texts.append(content)
    seed = "\n".join(texts)[-MAX_HISTORY_CHARS:]
    paths = {p.block.lineage.source_path for p in floor if p.required and p.block.layer is Layer.CODEX}
    return RankingQuery(text=text, history=seed, required_paths=tuple(sorted(p for p in paths if p)))


def rank_floor(
    config: LychdConfig,
    registry: Registry,
    query: RankingQuery,
    floor: Sequence[Placement],
    facts: Mapping[str, JsonValue],
    room: int,
    alternates: Mapping[str, Contribution] | None = None,
) -> RankedFloor:
    """Rank the optional Codex blocks of ``floor`` (``facts`` by block key) and add resolutions
    planned against ``room``, the characters optional material can use. ``alternates``: a
    verbatim block's key -> the structure projection of the same material, its fallback."""
    plain = tuple(floor)
    if not config.ranking.profiles or not any(p.block.layer is Layer.CODEX and not p.required for p in plain):
        return RankedFloor(plain)  # nothing to rank: the pins are resolved where they are used
    report = rank_or_fallback(weighted_profiles(config, registry), query, _candidates(plain, facts))
    if not report.ranked:
        return RankedFloor(plain, report)
    # Every ranked candidate is planned, unscored ones last (smallest first) and only in
    # the room scored files leave: a map of coarse views grows with what remains.
    ranked_keys = [e.node_id for e in report.entries]
    notes: list[str] = []
    views = _views(config, registry, plain, ranked_keys, facts, frozenset(terms(query.text)), alternates or {}, notes)
    # optional floor blocks that are not ranked (an environment snapshot) are planned as taken first
    room -= sum(len(item.block.text) for item in plain if not item.required and item.block.key not in views)
    scores = [e.score for e in report.entries]
    plan = plan_views(
        [[len(b.text) for b in views[k]] for k in ranked_keys],
        scores,
        room,
        [_view_names(views[k]) for k in ranked_keys],
    )
    placements, offered = _placements(plain, views, ranked_keys, plan, scores)
    short = {ranked_keys[i]: short_note(plan, i) for i in plan.short}
    unscored = {
        ranked_keys[i]: f"score 0: planned only in the {left:,} characters every scored file left"
        for i, left in plan.leftover.items()
    }
    return RankedFloor(placements, report, tuple(notes), offered, short, unscored, plan)


def short_note(plan: ViewPlan, index: int) -> str:
    """Why file ``index`` was planned below its full view: what that needed, what remained, and
    where the rest went (to better-ranked files: ranked too low; to worse-ranked ones: cheaper
    views bought more)."""
    need, left = plan.short[index]
    before, after = plan.spent[index]
    return (
        f"the full projection needs {need:,} characters, {left:,} remained; the views of better-ranked "
        f"files take {before:,}, of worse-ranked files {after:,}"
    )


def _candidates(plain: Sequence[Placement], facts: Mapping[str, JsonValue]) -> list[RankingCandidate]:
    """The optional Codex blocks, as ranking profiles see them."""
    return [
        RankingCandidate(
            node_id=item.block.key,
            path=item.block.lineage.source_path or item.block.key,
            text=item.block.text,
            facts=facts.get(item.block.key),
            profile=item.block.lineage.profile or "",
        )
        for item in plain
        if item.block.layer is Layer.CODEX and not item.required
    ]


def _views(
    config: LychdConfig,
    registry: Registry,
    plain: Sequence[Placement],
    ranked_keys: Sequence[str],
    facts: Mapping[str, JsonValue],
    query_terms: frozenset[str],
    alternates: Mapping[str, Contribution],
    notes: list[str],
) -> dict[str, list[Block]]:
    """Each ranked block's views, full first: its profile's coarser resolutions, or a verbatim
    block's structure fallbacks (none with ``resolutions = false``)."""
    by_key = {item.block.key: item.block for item in plain}
    views: dict[str, list[Block]] = {}
    for key in ranked_keys:
        block = by_key[key]
        alternate = alternates.get(key)
        if not config.ranking.resolutions:
            extra = []
        elif alternate is not None:
            extra = verbatim_fallbacks(registry, block, alternate, query_terms, notes)
        else:
            extra = _resolutions(registry, block, facts.get(key), query_terms, notes)
        views[key] = [block, *extra]
    return views


def _view_names(family: Sequence[Block]) -> list[str]:
    """``full``, then each coarser view's name (the key's suffix after ``#``)."""
    return [b.key.rsplit("#", 1)[1] if "#" in b.key else "full" for b in family]


def _placements(
    plain: Sequence[Placement],
    views: Mapping[str, list[Block]],
    ranked_keys: Sequence[str],
    plan: ViewPlan,
    scores: Sequence[int],
) -> tuple[tuple[Placement, ...], dict[str, tuple[str, ...]]]:
    """The floor with each ranked block's views in its place, their relevance from the plan and
    one exclusive group per block with coarser views; and those groups' coarser keys."""
    values = view_relevance(plan.chosen, [len(views[k]) for k in ranked_keys], scores, plan.unscored)
    relevance = {b.key: v for k, vs in zip(ranked_keys, values, strict=True) for b, v in zip(views[k], vs, strict=True)}
    placements: list[Placement] = []
    offered: dict[str, tuple[str, ...]] = {}
    for item in plain:
        if item.block.key not in views:
            placements.append(item)
            continue
        family = views[item.block.key]
        group = item.block.key if len(family) > 1 else None
        if group is not None:
            offered[group] = tuple(b.key for b in family[1:])
        placements.extend(Placement(b, False, relevance[b.key], group) for b in family)
    return tuple(placements), offered


def _resolutions(
    registry: Registry, block: Block, facts: JsonValue, query_terms: frozenset[str], notes: list[str]
) -> list[Block]:
    pin = block.lineage.profile
    if not pin or "@" not in pin:
        return []
    name = pin.rsplit("@", 1)[0]
    try:
        profile = registry.lookup(PluginFamily.PROJECTION_PROFILE, name).obj
    except LookupError:
        return []
    offer = offer_of(profile)
    if offer is None:
        return []
    try:
        raw = offer(facts, query_terms)
    except Exception as exc:  # a plugin's capability failing costs only its resolutions, explained
        notes.append(f"{block.key}: {pin} resolutions raised {type(exc).__name__}: {exc}; only the full projection")
        return []
    checked = checked_resolutions(block, raw)
    if isinstance(checked, str):
        notes.append(f"{block.key}: {pin} resolutions refused ({checked}); only the full projection")
        return []
    return [resolution_block(block, name, text) for name, text in checked]
