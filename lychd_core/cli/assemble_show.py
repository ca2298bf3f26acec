"""The default ``lychd assemble`` screen: one screen made from an :class:`AssemblySummary`."""

from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.text import Text

from lychd_core.cli.assemble_summary import AssemblySummary, Budget, Material
from lychd_core.cli.output import plain

BAR_WIDTH = 60
SHOWN_FILES = 30
"""Selected files listed by name; the rest are counted (``--explain`` and markdown list all)."""
SHOWN_UNAVAILABLE = 3
MIN_LAST = 20
"""Characters the last column (the reason) keeps before a path column gives up room."""
MIN_SQUEEZED = 16
SHOWN_LABEL_SOURCES = 4
PART_STYLES = {
    "instructions": "magenta",
    "codex": "cyan",
    "environment": "bright_magenta",
    "memory": "yellow",
    "compaction": "bright_yellow",
    "history": "blue",
    "continuation": "green",
    "query": "bold white",
}


def show_summary(console: Console, summary: AssemblySummary) -> None:
    """The whole default screen, top to bottom."""
    budget = summary.budget
    console.print(
        f"[bold]context for run {plain(summary.run_id)}[/] (role {plain(summary.role)}): "
        f"{budget.used:,} of {budget.cap:,} {budget.unit} used"
    )
    if summary.config is not None:
        console.print(f"config: {plain(summary.config)}")
    console.print(f"budget in {budget.unit}: {plain(budget.basis)}")
    console.print(budget_bar(budget))
    console.print(budget_legend(budget))
    for line in counts_lines(summary, console.width):
        console.print(plain(line), soft_wrap=True)
    show_material(console, summary.material, budget.unit)
    show_unavailable(console, summary.unavailable)
    for words in (summary.ranking, summary.compression):
        if words is not None:
            console.print(plain(words))
    for note in summary.notes:
        console.print(f"note: {plain(note)}")
    console.print(plain(label_line(summary)))
    console.print(f"egress: {plain(summary.egress)}")
    console.print(f"prefix digest: {summary.prefix_digest}")
    console.print("[dim]--explain: every node and why; --format prompt: the text the model receives[/]")


def budget_bar(budget: Budget) -> Text:
    """One cell per 1/60 of the cap, coloured by part; a part that used anything gets a cell."""
    bar = Text()
    used_cells = 0
    for part, amount in budget.parts.items():
        cells = max(1, round(BAR_WIDTH * amount / budget.cap)) if budget.cap else 0
        cells = min(cells, BAR_WIDTH - used_cells)
        bar.append("█" * cells, style=PART_STYLES.get(part, "white"))
        used_cells += cells
    bar.append("░" * max(0, BAR_WIDTH - used_cells), style="dim")
    return bar


def budget_legend(budget: Budget) -> Text:
    legend = Text()
    for part, amount in [*budget.parts.items(), ("free", max(0, budget.cap - budget.used))]:
        legend.append(f"{part} {amount:,}  ", style=PART_STYLES.get(part, "dim"))
    legend.append(f"({budget.unit})", style="dim")
    return legend


def columns(
    header: list[str],
    rows: list[list[str]],
    width: int,
    right: frozenset[int] = frozenset(),
    squeeze: int | None = None,
) -> list[str]:
    """Rows as aligned lines within ``width``: every column as wide as its widest cell, except the
    last, which gets what remains and is cut with an ellipsis (the whole text is in --explain and
    JSON). Column ``squeeze`` (a path) gives up room first, its cells cut from the left."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    if squeeze is not None:
        fixed = sum(widths[:-1]) + 2 * len(widths)
        widths[squeeze] = max(MIN_SQUEEZED, min(widths[squeeze], widths[squeeze] + width - fixed - MIN_LAST))
    lines = []
    for row in (header, *rows):
        cells = [_fit(cell, w, i in right) for i, (cell, w) in enumerate(zip(row[:-1], widths, strict=False))]
        line = "  ".join(cells)
        room = max(MIN_LAST // 2, width - len(line) - 2)
        last = row[-1] if len(row[-1]) <= room else row[-1][: room - 1] + "…"
        text = f"{line}  {last}".rstrip()
        # Wide fixed columns can leave the last less than its minimum: the line is cut, never wider.
        lines.append(text if len(text) <= width else text[: width - 1] + "…")
    return lines


def _fit(cell: str, width: int, right: bool) -> str:
    if len(cell) > width:
        cell = "…" + cell[len(cell) - width + 1 :]  # keep the end of a path: its file name
    return cell.rjust(width) if right else cell.ljust(width)


def counts_lines(summary: AssemblySummary, width: int) -> list[str]:
    rows = [
        [
            "files" if count.part == "codex" else count.part,
            f"{count.selected:,}",
            f"{count.omitted:,}",
            ", ".join(f"{reason} ({n})" for reason, n in sorted(count.omitted_why.items())),
        ]
        for count in summary.counts
    ]
    return columns(["part", "selected", "omitted", "why omitted"], rows, width, frozenset({1, 2}))


def show_material(console: Console, material: tuple[Material, ...], unit: str) -> None:
    """Selected files, one line each, required first and then by rank; the tail is counted."""
    if not material:
        return
    views = Counter(row.view for row in material)
    console.print(
        f"[bold]selected files[/] ({len(material):,}: "
        + ", ".join(f"{n:,} {view}" for view, n in sorted(views.items()))
        + "), required first, then by rank:"
    )
    rows = [
        [
            "-" if row.rank is None else str(row.rank),
            row.view,
            f"{row.size:,}",
            "-" if row.score is None else f"{row.score:,}",
            row.path,
            row.reason,
        ]
        for row in material[:SHOWN_FILES]
    ]
    header = ["rank", "view", unit, "score", "file", "why"]
    for line in columns(header, rows, console.width, frozenset({0, 2, 3}), squeeze=4):
        console.print(plain(line), soft_wrap=True)
    rest = material[SHOWN_FILES:]
    if rest:
        tail = Counter(row.view for row in rest)
        console.print(
            f"... and {len(rest):,} more: "
            + ", ".join(f"{n:,} {view}" for view, n in sorted(tail.items()))
            + f" ({sum(row.size for row in rest):,} {unit}); --format markdown lists them all"
        )


def show_unavailable(console: Console, unavailable: tuple[tuple[str, str], ...]) -> None:
    if not unavailable:
        return
    console.print(f"could not use {len(unavailable):,} file(s):")
    for what, reason in unavailable[:SHOWN_UNAVAILABLE]:
        console.print(f"  {plain(what)}: {plain(reason)}", no_wrap=True, overflow="ellipsis")
    if len(unavailable) > SHOWN_UNAVAILABLE:
        console.print(f"  ... and {len(unavailable) - SHOWN_UNAVAILABLE:,} more (--explain lists every one)")


def label_line(summary: AssemblySummary) -> str:
    """``privacy: internal, because of the environment snapshot`` (plain words, no node ids)."""
    because = list(summary.label_because)
    more = f" and {len(because) - SHOWN_LABEL_SOURCES:,} more" if len(because) > SHOWN_LABEL_SOURCES else ""
    line = f"privacy label: {summary.label}"
    line += "" if summary.lineage_known else " (some lineage unknown)"
    if because:
        line += f", set by {', '.join(because[:SHOWN_LABEL_SOURCES])}{more}"
    return line
