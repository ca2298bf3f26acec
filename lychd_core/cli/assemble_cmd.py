"""``lychd assemble``: the main job — one bounded, explained context from a workspace."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from lychd_core.assembly import AssembledContext, ContextOrchestrator, Unexplained
from lychd_core.blocks import Block, Layer, Lineage
from lychd_core.cli.assemble_formats import markdown_text, prompt_text
from lychd_core.cli.assemble_show import show_summary
from lychd_core.cli.assemble_summary import AssemblySummary, summarize
from lychd_core.cli.command_inputs import material_refs, read_messages
from lychd_core.cli.label_view import add_label_arguments, caller_labels
from lychd_core.cli.loading import CONFIG_HELP, command_config, config_in_use
from lychd_core.cli.output import console, json_text, write_output
from lychd_core.cli.progress import progress_bar
from lychd_core.errors import AssemblyError
from lychd_core.inputs import read_input_text
from lychd_core.labels import PrivatizationLabel
from lychd_core.projection.materials import MaterialRef

MAX_QUERY_BYTES = 16 * 1024 * 1024
FORMATS = ("summary", "prompt", "markdown", "json")
SUMMARY_WIDTH = 100
"""Columns of the summary written to a file or pipe (a terminal uses its own width)."""


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
    shown = parser.add_argument_group("output (docs/output.md)")
    shown.add_argument(
        "--format",
        choices=FORMATS,
        default="summary",
        help="summary: one screen for a person (default); prompt: the context exactly as the model receives it, "
        "to pipe into a model; markdown: the summary and the context for people; json: everything, as data",
    )
    shown.add_argument("--json", action="store_true", help="the same as --format json")
    shown.add_argument("--explain", action="store_true", help="add every node, selected or omitted, and why")
    shown.add_argument("--output", metavar="FILE", help="write the output to FILE (atomically) instead of stdout")
    parser.set_defaults(func=run)


def _query(args: argparse.Namespace) -> str:
    if args.query_file is None:
        return str(args.query)
    return read_input_text(args.query_file, what="--query-file", max_bytes=MAX_QUERY_BYTES, error=AssemblyError)


def run(args: argparse.Namespace) -> int:
    output_format = "json" if args.json else args.format
    if args.explain and output_format != "summary":
        raise AssemblyError(
            f"--explain adds the per-node table to the summary; it does not go with --format {output_format}"
        )
    config = command_config(args, for_model_call=True)
    query = _query(args)
    orchestrator = ContextOrchestrator(config, workspace=Path(args.workspace))
    assert orchestrator.workspace is not None
    try:
        cache = orchestrator.projector().cache if args.material else None
        refs, skipped = material_refs(orchestrator.workspace, args.material, cache)
        with progress_bar("projecting", len(refs)) as advance:
            orchestrator.progress = advance
            assembled = _assemble(orchestrator, args, query, refs)
    finally:
        orchestrator.close()
    egress = None if args.target is None else orchestrator.gate.check(assembled, args.target).to_json()
    summary = summarize(assembled, skipped, args.target, egress, config=config_in_use(args))
    if args.output is None and output_format == "summary":
        show_summary(console, summary)
        if args.explain:
            from lychd_core.cli.assemble_explain import show_explain  # the per-node table: --explain only

            show_explain(console, assembled, skipped, summary.budget.unit)
        return 0
    text = _render(output_format, assembled, summary, skipped, egress, args.explain)
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_output(Path(args.output), text)
    return 0


def _assemble(
    orchestrator: ContextOrchestrator, args: argparse.Namespace, query: str, refs: list[MaterialRef]
) -> AssembledContext:
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
    labels = caller_labels(args)
    return orchestrator.assemble(
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
        history=read_messages(args.history, "history"),
        continuation=read_messages(args.continuation, "continuation"),
        role=args.role,
        window=args.window,
        reserve_output=args.reserve_output,
        compress=True if args.compress else None,
    )


def _render(
    output_format: str,
    assembled: AssembledContext,
    summary: AssemblySummary,
    skipped: list[Unexplained],
    egress: dict[str, Any] | None,
    explain: bool,
) -> str:
    """The chosen format as text (the summary without colour, as a file or pipe gets it)."""
    if output_format == "prompt":
        return prompt_text(assembled)
    if output_format == "markdown":
        return markdown_text(assembled, summary)
    if output_format == "json":
        data = {
            **assembled.to_json(),
            "skipped_material": [item.to_json() for item in skipped],
            "egress": egress,
            "summary": summary.to_json(),
        }
        return json_text(data)
    plain_console = Console(file=io.StringIO(), width=SUMMARY_WIDTH, color_system=None, highlight=False)
    show_summary(plain_console, summary)
    if explain:
        from lychd_core.cli.assemble_explain import show_explain

        show_explain(plain_console, assembled, skipped, summary.budget.unit)
    file = plain_console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()
