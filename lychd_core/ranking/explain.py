"""Ranking as a person and a program read it: rank, score, reason and resolution per node."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lychd_core.graph import SelectionPlan
from lychd_core.ranking.stage import RankedFloor
from lychd_core.vocabulary import OmissionReason

FLOOR_PREFIX = "L2:"


@dataclass(frozen=True, slots=True)
class NodeRanking:
    """What ranking says about one Codex node of the graph."""

    node_id: str
    rank: int
    score: int
    reason: str
    resolution: str
    """``full`` or the coarser resolution's name."""
    resolution_note: str = ""
    """For a selected coarser resolution: why the finer ones were not taken; for a selected
    full projection of a score-0 file: that it only had the room the scored files left."""

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "score": self.score,
            "reason": self.reason,
            "resolution": self.resolution,
            "resolution_note": self.resolution_note,
        }


def node_rankings(ranked: RankedFloor, plan: SelectionPlan) -> dict[str, NodeRanking]:
    """Every ranked Codex node (full and coarser resolutions) by graph node id."""
    report = ranked.report
    if report is None or not report.ranked:
        return {}
    rows: dict[str, NodeRanking] = {}
    for entry in report.entries:
        full_id = FLOOR_PREFIX + entry.node_id
        leftover = ranked.unscored.get(entry.node_id, "") if plan.is_selected(full_id) else ""
        rows[full_id] = NodeRanking(full_id, entry.rank, entry.score, entry.reason, "full", leftover)
        finer = [full_id]
        for key in ranked.resolutions.get(entry.node_id, ()):
            node_id = FLOOR_PREFIX + key
            name = key.rsplit("#", 1)[1]
            note = _note(plan, name, finer, ranked.short.get(entry.node_id, "")) if plan.is_selected(node_id) else ""
            rows[node_id] = NodeRanking(node_id, entry.rank, entry.score, entry.reason, name, note)
            finer.append(node_id)
    return rows


def _note(plan: SelectionPlan, name: str, finer: list[str], planned: str) -> str:
    """``signatures only: the full projection needs 6,354 characters, 164 remained``."""
    full = plan.explanations[finer[0]]
    if full.reason is OmissionReason.ALTERNATIVE_SELECTED and planned:
        return f"{name} only: {planned}"
    return f"{name} only: the full projection was omitted ({full.reason.value}: {full.detail})"


def ranking_json(ranked: RankedFloor, plan: SelectionPlan) -> dict[str, Any]:
    """The ranking report plus each Codex node's rank, score components and resolution."""
    report = ranked.report
    data: dict[str, Any] = {} if report is None else report.to_json()
    data["notes"] = list(ranked.notes)
    data["nodes"] = {node_id: row.to_json() for node_id, row in sorted(node_rankings(ranked, plan).items())}
    return data
