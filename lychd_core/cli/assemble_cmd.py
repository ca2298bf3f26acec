"""``lychd assemble``: the main job — one bounded, explained context from a workspace."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from lychd_core.assembly import AssembledContext, ContextOrchestrator, Unexplained
from lychd_core.blocks import Block, Layer, Lineage
from lychd_core.cli.label_view import add_label_arguments, caller_labels, joined_label_line, label_cell
from lychd_core.cli.loading import CONFIG_HELP, command_config
from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.cli.rank_cmd import rank_text, ranking_summary
from lychd_core.errors import AssemblyError, MaterialError
from lychd_core.inputs import parse_json, read_input_bytes, read_input_text
from lychd_core.labels import PrivatizationLabel
from lychd_core.projection.current import current_refs
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.walk import walk_files
from lychd_core.ranking import node_rankings
from lychd_core.stores.protocols import ProjectionCacheStore

MAX_MESSAGES_BYTES = 256 * 1024 * 1024
MAX_QUERY_BYTES = 16 * 1024 * 1024
BAR_WIDTH = 60
BAR_STYLES = {
    "floor": "magenta",
    "codex": "cyan",
    "memory": "yellow",
    "history": "blue",
    "continuation": "green",
    "query": "bold white",
}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("assemble", help="assemble one bounded, explained context (the main job)")
    parser.add_argument("--config", help=CONFIG_HELP)
    parser.add_argument("--workspace", default=".", help="workspace root that material paths are relative to")
    parser.add_argument(
        "--material",
        action="append",
        default=[],
        metavar="PATH",
        help="file (required) or directory (each file optional, .gitignore-aware) to project into layer 2",
    )
    parser.add_argument("--instructions", help="identity text for layer 1 (the agent's static instructions)")
    parser.add_argument("--history", help="JSON file: settled history in the Pydantic AI wire form")
    parser.add_argument("--continuation", help="JSON file: the indivisible current continuation")
    asked = parser.add_mutually_exclusive_group(required=True)
    asked.add_argument("--query", help="the user's query")
    asked.add_argument("--query-file", metavar="PATH", help="read the query from a UTF-8 file ('-' for standard input)")
    parser.add_argument("--role", help="role whose policy filters the context (default from config)")
    parser.add_argument("--window", type=int, help="known model context window in tokens")
    parser.add_argument("--reserve-output", type=int, help="tokens reserved for the model's output")
    parser.add_argument(
        "--compress",
        action="store_true",
        help="run the pinned [compression] compressors when optional material would be omitted (over-budget)",
    )
    memory = parser.add_argument_group("derived memory (quoted, non-authoritative evidence in layer 4)")
    memory.add_argument("--memory", action="store_true", help="retrieve evidence from the configured memory store")
    memory.add_argument("--project", help="memory scope: project")
    memory.add_argument("--repository", help="memory scope: repository")
    memory.add_argument("--actor", help="memory scope: actor")
    memory.add_argument("--now", type=int, help="logical observation for expiry (default: the store's latest)")
    memory.add_argument("--memory-limit", type=int, default=10, help="most memories to retrieve (default: 10)")
    add_label_arguments(parser)
    parser.add_argument("--run-id", default="cli-run", help="run id (default: cli-run)")
    parser.add_argument("--session-id", default="cli-session", help="session id (default: cli-session)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def _read_messages(path: str | None, what: str) -> list[Any]:
    if path is None:
        return []
    text = read_input_bytes(path, what=f"--{what}", max_bytes=MAX_MESSAGES_BYTES, error=AssemblyError)
    value = parse_json(text, source=f"--{what} {path}", error=AssemblyError)
    if not isinstance(value, list):
        raise AssemblyError(f"--{what} {path}: expected a JSON list of messages, got {type(value).__name__}")
    return value


def _query(args: argparse.Namespace) -> str:
    if args.query_file is None:
        return str(args.query)
    return read_input_text(args.query_file, what="--query-file", max_bytes=MAX_QUERY_BYTES, error=AssemblyError)


def _material_refs(
    workspace: Workspace, paths: list[str], cache: ProjectionCacheStore | None = None
) -> tuple[list[MaterialRef], list[Unexplained]]:
    """A named file is required (any refusal stops the run); a file found by walking a
    directory is optional, and one that cannot be referenced is reported, not fatal."""
    refs: list[MaterialRef] = []
    skipped: list[Unexplained] = []
    for raw in paths:
        relative, is_dir = workspace.argument(raw)
        if not is_dir:
            refs.append(MaterialRef.for_current(workspace, relative, required=True))
            continue
        walked = walk_files(workspace.root / relative, workspace.root)
        skipped += [Unexplained(path, f"unreadable directory: {reason}") for path, reason in walked.unreadable]
        skipped += [Unexplained(path, reason) for path, reason in walked.refused]
        files = list(walked.files)
        for file, found in zip(files, current_refs(workspace, cache, files, required=False), strict=True):
            if isinstance(found, MaterialError):  # unchanged recorded files are not re-read to be referenced
                skipped.append(Unexplained(file, f"{type(found).__name__}: {found}"))
            else:
                refs.append(found)
    return refs, skipped


def run(args: argparse.Namespace) -> int:
    config = command_config(args, for_model_call=True)
    query = _query(args)
    orchestrator = ContextOrchestrator(config, workspace=Path(args.workspace))
    assert orchestrator.workspace is not None
    cache = orchestrator.projector().cache if args.material else None
    refs, skipped = _material_refs(orchestrator.workspace, args.material, cache)
    identity = []
    if args.instructions:
        identity.append(
            Block(
                layer=Layer.IDENTITY,
                key="identity:cli",
                text=args.instructions,
                label=PrivatizationLabel.public("cli:instructions"),
                lineage=Lineage(profile="cli@1"),
            )
        )
    memory: Any = ()
    if args.memory:
        memory = orchestrator.retrieve_memory(
            args.role,
            now=args.now,
            project=args.project,
            repository=args.repository,
            actor=args.actor,
            limit=args.memory_limit,
        )
    try:
        labels = caller_labels(args)
        assembled = orchestrator.assemble(
            query_label=labels["query"],
            history_label=labels["history"],
            continuation_label=labels["continuation"],
            target=args.target,
            memory=memory,
            run_id=args.run_id,
            session_id=args.session_id,
            query=query,
            identity=identity,
            codex=refs,
            history=_read_messages(args.history, "history"),
            continuation=_read_messages(args.continuation, "continuation"),
            role=args.role,
            window=args.window,
            reserve_output=args.reserve_output,
            compress=True if args.compress else None,
        )
    finally:
        orchestrator.close()
    egress = None if args.target is None else orchestrator.gate.check(assembled, args.target).to_json()
    if args.json:
        emit_json({**assembled.to_json(), "skipped_material": [item.to_json() for item in skipped], "egress": egress})
    else:
        show(assembled, skipped)
        if egress is not None:
            console.print(f"egress to {plain(args.target)}: admitted")
    return 0


def budget_bar(assembled: AssembledContext) -> Text:
    cap = assembled.bounds.char_cap
    bar = Text()
    used_cells = 0
    for layer, chars in assembled.layer_chars.items():
        cells = round(BAR_WIDTH * chars / cap) if cap else 0
        if chars and not cells:
            cells = 1
        bar.append("█" * cells, style=BAR_STYLES.get(layer, "white"))
        used_cells += cells
    bar.append("░" * max(0, BAR_WIDTH - used_cells), style="dim")
    return bar


def show(assembled: AssembledContext, skipped: list[Unexplained]) -> None:
    bounds = assembled.bounds
    console.print(
        f"[bold]context for run {plain(assembled.run_id)}[/] (role {plain(assembled.role)}): "
        f"{assembled.used_chars:,} of {bounds.char_cap:,} characters"
        + (f", window {bounds.window:,} tokens" if bounds.window else ", no known window")
    )
    console.print(budget_bar(assembled))
    free = bounds.char_cap - sum(assembled.layer_chars.values())
    legend = Text()
    for layer, chars in [*assembled.layer_chars.items(), ("free", free)]:
        legend.append(f"{layer} {chars:,}  ", style=BAR_STYLES.get(layer, "dim"))
    console.print(legend)
    table = Table(title="every node, selected or omitted")
    table.add_column("node", overflow="fold", ratio=3)
    table.add_column("class / provenance", overflow="fold", ratio=2)
    table.add_column("label", no_wrap=True)
    table.add_column("tokens", justify="right", no_wrap=True)
    table.add_column("status", overflow="fold", ratio=2)
    graph = assembled.plan.graph
    ranks = node_rankings(assembled.ranking, assembled.plan) if assembled.ranking is not None else {}
    for node_id, explanation in assembled.plan.explanations.items():
        node = graph.node(node_id)
        status = "[green]selected[/]" if explanation.selected else "[red]omitted[/]"
        table.add_row(
            plain(node_id),
            f"{node.context_class.value} / {node.provenance.value}",
            plain(label_cell(assembled, node_id)),
            f"{explanation.tokens:,}",
            f"{status}: {plain(str(explanation.reason.value))}" + rank_text(ranks.get(node_id)),
        )
    for item in assembled.not_nodes:
        table.add_row(plain(item.what), "", "", "", f"[yellow]not a node[/]: {plain(item.reason)}")
    for item in skipped:
        table.add_row(plain(item.what), "", "", "", f"[yellow]skipped[/]: {plain(item.reason)}")
    console.print(table)
    if assembled.memory_plan is not None:
        plan = assembled.memory_plan
        console.print(
            f"memory: {len(plan['selected'])} retrieved of {plan['inputs']} records "
            f"({', '.join(f'{reason} {count}' for reason, count in sorted(plan['counts'].items()))}); "
            "`lychd memory query --explain` explains each record"
        )
    show_compression(assembled.compression)
    if assembled.ranking is not None and assembled.ranking.report is not None:
        console.print(ranking_summary(assembled.ranking.report), soft_wrap=True)
    console.print(f"prefix digest: {assembled.prefix_digest}", soft_wrap=True)
    console.print(plain(joined_label_line(assembled)), soft_wrap=True)


def show_compression(report: dict[str, Any] | None) -> None:
    """What compression did: why it ran or not, and what each compaction saved."""
    if report is None or (not report["ran"] and report["placement"] == "never"):
        return
    if not report["ran"]:
        console.print(f"compression ({report['placement']}): did not run: {plain(report['reason'])}")
        return
    saved = report["saved"]
    console.print(
        f"compression ({report['placement']}): {plain(report['reason'])}; "
        f"saved {saved['chars']:,} characters, {saved['tokens']:,} tokens"
    )
    table = Table(title="compactions (derived, non-authoritative; sources unchanged)")
    table.add_column("derived node", overflow="fold", ratio=3)
    table.add_column("compressor", overflow="fold", ratio=2)
    table.add_column("replaces", overflow="fold", ratio=3)
    table.add_column("saved chars", justify="right", no_wrap=True)
    table.add_column("declared omissions", overflow="fold", ratio=3)
    for receipt in report["compactions"]:
        table.add_row(
            plain(receipt["output"]["id"]),
            plain(receipt["policy"]["id"]),
            plain(", ".join(source["id"] for source in receipt["sources"])),
            f"{receipt['saved']['chars']:,}",
            plain("; ".join(o["reason"] for o in receipt["omissions"])),
        )
    console.print(table)
