"""``lychd assemble --explain``: every node of the graph, selected or omitted, and why."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from lychd_core.assembly import AssembledContext, Unexplained
from lychd_core.cli.label_view import joined_label_line, label_cell
from lychd_core.cli.output import plain
from lychd_core.cli.rank_cmd import rank_text
from lychd_core.ranking import node_rankings


def show_explain(console: Console, assembled: AssembledContext, skipped: list[Unexplained], unit: str) -> None:
    """The per-node table (sizes in ``unit``, the summary's), then memory, compression and the label's sources."""
    table = Table(title="every node, selected or omitted")
    table.add_column("node", overflow="fold", ratio=3)
    table.add_column("class / provenance", overflow="fold", ratio=2)
    table.add_column("label", no_wrap=True)
    table.add_column(unit, justify="right", no_wrap=True)
    table.add_column("status", overflow="fold", ratio=2)
    graph = assembled.plan.graph
    ranks = node_rankings(assembled.ranking, assembled.plan) if assembled.ranking is not None else {}
    for node_id, explanation in assembled.plan.explanations.items():
        node = graph.node(node_id)
        status = "[green]selected[/]" if explanation.selected else "[red]omitted[/]"
        size = explanation.tokens if unit == "tokens" else explanation.chars
        table.add_row(
            plain(node_id),
            f"{node.context_class.value} / {node.provenance.value}",
            plain(label_cell(assembled, node_id)),
            f"{size:,}",
            f"{status}: {plain(explanation.reason.value)} ({plain(explanation.detail)})"
            + rank_text(ranks.get(node_id)),
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
            "`lychd memory query --explain` explains each record",
            soft_wrap=True,
        )
    show_compression(console, assembled.compression)
    console.print(plain(joined_label_line(assembled)), soft_wrap=True)


def show_compression(console: Console, report: dict[str, Any] | None) -> None:
    """What compression did: why it ran or not, and what each compaction saved."""
    if report is None or (not report["ran"] and report["placement"] == "never"):
        return
    if not report["ran"]:
        console.print(f"compression ({report['placement']}): did not run: {plain(report['reason'])}", soft_wrap=True)
        return
    saved = report["saved"]
    console.print(
        f"compression ({report['placement']}): {plain(report['reason'])}; "
        f"saved {saved['chars']:,} characters, {saved['tokens']:,} tokens",
        soft_wrap=True,
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
