"""``lychd rank``: the ranked candidate list for a query, without assembling."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.table import Table

from lychd_core.assembly import ContextOrchestrator
from lychd_core.cli.command_inputs import material_refs, read_messages
from lychd_core.cli.loading import CONFIG_HELP, command_config
from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.errors import AssemblyError
from lychd_core.families import RankingCandidate
from lychd_core.ranking import NodeRanking, Placement, RankingReport, rank_or_fallback, ranking_query, weighted_profiles


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("rank", help="rank material for a query with the configured ranking profiles")
    parser.add_argument("--config", help=CONFIG_HELP)
    parser.add_argument("--workspace", default=".", help="workspace root that material paths are relative to")
    parser.add_argument(
        "--material", action="append", default=[], metavar="PATH", help="file or directory to rank (repeat)"
    )
    parser.add_argument("--query", required=True, help="the query to rank against")
    parser.add_argument("--history", help="JSON file: history in the Pydantic AI wire form (its newest messages seed)")
    parser.add_argument("--limit", type=int, default=0, help="show only the first N candidates (default: all)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.limit < 0:
        raise AssemblyError(f"--limit must be 0 (all) or a positive number, got {args.limit}")
    config = command_config(args)
    orchestrator = ContextOrchestrator(config, workspace=Path(args.workspace))
    assert orchestrator.workspace is not None
    refs, skipped = material_refs(orchestrator.workspace, args.material)
    profiles = weighted_profiles(config, orchestrator.registry)
    if not profiles:
        raise AssemblyError("no ranking profiles are configured; add [[ranking.profiles]] to the configuration")
    try:
        contributions = orchestrator.projector().project_many(refs) if refs else []
    finally:
        orchestrator.close()
    candidates = [
        RankingCandidate(c.block.key, c.ref.source, c.block.text, c.facts, c.profile_pin or "")
        for c in contributions
        if c.block is not None and c.block.text
    ]
    required = [Placement(c.block, True) for c in contributions if c.block is not None and c.ref.required]
    query = ranking_query(config, args.query, read_messages(args.history, "history"), required)
    report = rank_or_fallback(profiles, query, candidates)
    shown = report.entries[: args.limit] if args.limit else report.entries
    if args.json:
        data = report.to_json()
        data["entries"] = [entry.to_json() for entry in shown]
        data["skipped_material"] = [item.to_json() for item in skipped]
        data["unavailable"] = [
            {"what": c.ref.source, "reason": c.unavailable} for c in contributions if c.block is None
        ]
        emit_json(data)
        return 0
    table = Table(title=f"ranked for: {plain(args.query[:80])}")
    table.add_column("rank", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("path", overflow="fold", ratio=2)
    table.add_column("why", overflow="fold", ratio=3)
    for entry in shown:
        table.add_row(str(entry.rank), f"{entry.score:,}", plain(entry.path), plain(entry.reason))
    console.print(table)
    console.print(ranking_summary(report), soft_wrap=True)
    return 0


def rank_text(row: NodeRanking | None) -> str:
    """The status column's ranking part for one Codex node."""
    if row is None:
        return ""
    text = f"\nrank {row.rank}, score {row.score:,}"
    if row.resolution != "full":
        text += f", view {row.resolution}"
    if row.resolution_note:
        text += f"\n{plain(row.resolution_note)}"
    if row.reason and row.resolution == "full":
        text += f"\n{plain(row.reason)}"
    return text


def ranking_summary(report: RankingReport) -> str:
    pins = ", ".join(f"{pin} x{weight}" for pin, weight in report.profiles)
    if report.fallback is not None:
        return f"ranking ({pins}): unranked order kept: {plain(report.fallback)}"
    scored = sum(1 for entry in report.entries if entry.score)
    return f"ranking ({pins}): {scored} of {len(report.entries)} candidates scored"
