"""``lychd project PATH...``: project files or directories and summarize what happened."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from rich.rule import Rule
from rich.table import Table

from lychd_core.cli.loading import CONFIG_HELP, command_config
from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.cli.progress import progress_bar
from lychd_core.config import LychdConfig
from lychd_core.config.media_table import MediaTable
from lychd_core.errors import MaterialError
from lychd_core.projection.cache_protocol import ProjectionCacheStore
from lychd_core.projection.current import current_refs
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Contribution, Projector
from lychd_core.projection.walk import walk_files
from lychd_core.registry import get_registry
from lychd_core.stores.factory import open_projection_cache

SHOWN_UNAVAILABLE = 50


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "project",
        help="project files or directories through the configured profiles",
        description="Project files (directories are walked honoring .gitignore) and summarize: projected, "
        "cached, unavailable with reasons. Every file is an optional reference pinned to its current digest.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories inside the workspace")
    parser.add_argument("--config", help=CONFIG_HELP)
    parser.add_argument("--workspace", default=".", help="workspace root (default: the current directory)")
    parser.add_argument("--processes", type=int, default=1, help="worker processes for bulk projection")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the projection cache")
    parser.add_argument("--show", action="store_true", help="also print each projected text (and include it in JSON)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def collect_paths(
    workspace: Workspace, config: LychdConfig, arguments: list[str]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Workspace-relative files named or found under the arguments, plus what could not be walked."""
    state_dir = config.stores.state_path(workspace.root)
    files: dict[str, None] = {}
    problems: list[tuple[str, str]] = []
    for argument in arguments:
        relative, is_dir = workspace.argument(argument)
        if is_dir:
            found = walk_files(workspace.root / relative, workspace.root, skip=(state_dir,))
            files.update(dict.fromkeys(found.files))
            problems.extend((path, f"unreadable directory: {why}") for path, why in found.unreadable)
            problems.extend(found.refused)
        else:
            files[relative] = None
    return list(files), problems


def _refs(
    workspace: Workspace, cache: ProjectionCacheStore | None, paths: list[str]
) -> tuple[list[MaterialRef], dict[str, str]]:
    refs: list[MaterialRef] = []
    refused: dict[str, str] = {}
    for path, found in zip(paths, current_refs(workspace, cache, paths, required=False), strict=True):
        if isinstance(found, MaterialError):  # escapes, special files, oversized: reported, never a crash
            refused[path] = f"{type(found).__name__}: {found}"
        else:
            refs.append(found)
    return refs, refused


def run(args: argparse.Namespace) -> int:
    config = command_config(args)
    workspace = Workspace(args.workspace)
    paths, unreadable = collect_paths(workspace, config, args.paths)
    cache = None if args.no_cache else open_projection_cache(config, workspace.root)
    refs, refused = _refs(workspace, cache, paths)
    projector = Projector(config, get_registry(), workspace, cache)
    try:
        with progress_bar("projecting", len(refs)) as advance:
            contributions = projector.project_many(refs, processes=args.processes, progress=advance)
    finally:
        if cache is not None:
            cache.close()
    items = [_item(c, args.show, projector.media_table) for c in contributions]
    items.extend({"path": path, "status": "unavailable", "reason": reason} for path, reason in refused.items())
    items.extend({"path": path, "status": "unavailable", "reason": why} for path, why in unreadable)
    items.sort(key=lambda item: item["path"])
    counts = Counter(item["status"] for item in items)
    summary = {"total": len(items), **{status: counts[status] for status in ("projected", "cached", "unavailable")}}
    if args.json:
        emit_json({"workspace": str(workspace.root), "summary": summary, "items": items})
        return 0
    if args.show:
        _print_texts(items)
    _print_summary(summary, items)
    return 0


def media_source(contribution: Contribution, table: MediaTable) -> dict[str, Any]:
    """Which source decided the media type, and for a declared one, who declared it."""
    media = contribution.media
    if media is None:
        return {"media_source": None}
    found = table.lookup(contribution.ref.path or "") if media.source.startswith(("config-", "profile-")) else None
    return {"media_source": media.source, "media_declared_by": None if found is None else found[0].declared_by}


def _item(contribution: Contribution, show: bool, projector_table: MediaTable) -> dict[str, Any]:
    block = contribution.block
    item: dict[str, Any] = {
        "path": contribution.ref.source,
        "status": "unavailable" if block is None else ("cached" if contribution.cached else "projected"),
        "media_type": contribution.media_type,
        **media_source(contribution, projector_table),
        "profile": contribution.profile_pin,
        "reason": contribution.unavailable,
    }
    if block is not None:
        item.update(key=block.key, content_hash=block.content_hash, characters=len(block.text))
        if show:
            item["text"] = block.text
    return item


def _print_texts(items: list[dict[str, Any]]) -> None:
    for item in items:
        if "text" in item:
            console.print(Rule(plain(f"{item['path']}  ({item['profile']})"), align="left"))
            console.print(plain(item["text"]), soft_wrap=True)


def _print_summary(summary: dict[str, int], items: list[dict[str, Any]]) -> None:
    table = Table(title="lychd project")
    table.add_column("status")
    table.add_column("files", justify="right")
    for status in ("projected", "cached", "unavailable"):
        table.add_row(status, str(summary[status]))
    table.add_row("total", str(summary["total"]), style="bold")
    console.print(table)
    unavailable = [item for item in items if item["status"] == "unavailable"]
    if not unavailable:
        return
    reasons = Table(title="unavailable")
    reasons.add_column("path")
    reasons.add_column("media type")
    reasons.add_column("reason")
    for item in unavailable[:SHOWN_UNAVAILABLE]:
        reasons.add_row(plain(item["path"]), plain(item.get("media_type") or "-"), plain(item["reason"] or ""))
    console.print(reasons)
    if len(unavailable) > SHOWN_UNAVAILABLE:
        console.print(f"... and {len(unavailable) - SHOWN_UNAVAILABLE} more unavailable (see --json)")
