"""``lychd assemble --format prompt|markdown``: the assembled context as text.

``prompt`` is the context exactly as a model receives it: the render plan's segments in
order (the query moved last, as chat adapters send it), each one tagged section between
begin and end markers that carry its content digest, so quoted material cannot close
its own section. ``markdown`` is the same context for people: the summary's tables, then
each section under a heading, its text in a fence longer than any run of backticks in it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from lychd_core.assembly import AssembledContext
from lychd_core.cli.assemble_summary import AssemblySummary, Material, describe, file_of
from lychd_core.graph import RenderSegment
from lychd_core.vocabulary import ContextClass, token

FENCE_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".md": "markdown",
    ".toml": "toml",
    ".json": "json",
    ".js": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".sh": "sh",
}


def prompt_segments(assembled: AssembledContext) -> list[RenderSegment]:
    """The render plan's segments, the query last (conversation parts already come last)."""
    segments = list(assembled.render_plan().segments)
    return [s for s in segments if s.context_class is not ContextClass.QUERY] + [
        s for s in segments if s.context_class is ContextClass.QUERY
    ]


def section_fields(segment: RenderSegment) -> dict[str, str]:
    """What a section's begin marker says: the render plan's fields, and a file's path and view."""
    fields = {
        "id": segment.source_id,
        "role": segment.message_role.value,
        "class": segment.context_class.value,
        "provenance": segment.provenance.value,
        "authority": token(segment.authority),
        "trust": token(segment.trust),
        "digest": segment.digest,
    }
    if segment.source_id.startswith("L2:"):
        fields["path"], fields["view"] = file_of(segment.source_id)
    return fields


def prompt_text(assembled: AssembledContext) -> str:
    """Every section, fenced by digest-carrying markers, separated by blank lines."""
    sections = []
    for segment in prompt_segments(assembled):
        begin = "<<<lychd:begin " + json.dumps(section_fields(segment), sort_keys=True, ensure_ascii=False) + ">>>"
        sections.append(f"{begin}\n{segment.content}\n<<<lychd:end {segment.digest}>>>")
    return "\n\n".join(sections) + "\n"


def _cell(text: object) -> str:
    """A markdown table cell: one line, pipes escaped."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _table(header: Iterable[str], rows: Iterable[Iterable[object]]) -> list[str]:
    names = list(header)
    lines = ["| " + " | ".join(names) + " |", "|" + "|".join(" --- " for _ in names) + "|"]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return lines


def fence(content: str, language: str = "") -> str:
    """``content`` in a backtick fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{content}\n{ticks}"


def _language(segment: RenderSegment) -> str:
    if segment.context_class in (ContextClass.HISTORY, ContextClass.CONTINUATION):
        return "json"
    if not segment.source_id.startswith("L2:"):
        return "text"
    path = file_of(segment.source_id)[0]
    suffix = path[path.rfind(".") :] if "." in path.rpartition("/")[2] else ""
    return FENCE_LANGUAGES.get(suffix.lower(), "text")


def _material_row(row: Material) -> tuple[object, ...]:
    rank = "-" if row.rank is None else row.rank
    return (rank, row.view, f"{row.size:,}", "-" if row.score is None else row.score, f"`{row.path}`", row.reason)


def markdown_text(assembled: AssembledContext, summary: AssemblySummary) -> str:
    """The summary as markdown tables (every selected file listed), then the context, section by section."""
    budget = summary.budget
    lines = [f"# Context for run `{summary.run_id}` (role {summary.role})", ""]
    if summary.config is not None:
        lines += [f"Config: `{summary.config}`", ""]
    lines += [f"**Budget:** {budget.used:,} of {budget.cap:,} {budget.unit} used ({budget.basis}).", ""]
    lines += _table(["part", budget.unit], [*budget.parts.items(), ("free", max(0, budget.cap - budget.used))])
    lines += ["", "## Selected and omitted", ""]
    lines += _table(
        ["part", "selected", "omitted", "why omitted"],
        (
            (c.part, c.selected, c.omitted, ", ".join(f"{r} ({n})" for r, n in sorted(c.omitted_why.items())))
            for c in summary.counts
        ),
    )
    if summary.material:
        lines += ["", "## Selected files (required first, then by rank)", ""]
        lines += _table(["rank", "view", budget.unit, "score", "file", "why"], map(_material_row, summary.material))
    if summary.unavailable:
        lines += ["", "## Not used", ""] + [f"- `{what}`: {_cell(why)}" for what, why in summary.unavailable]
    because = ", ".join(summary.label_because)
    lines += ["", "## Privacy and egress", ""]
    lines.append(f"- label: **{summary.label}**" + (f", set by {because}" if because else ""))
    lines += [f"- egress: {summary.egress}", f"- prefix digest: `{summary.prefix_digest}`"]
    lines += [f"- {line}" for line in (summary.ranking, summary.compression) if line is not None]
    lines += ["", "## The context, as the model receives it", ""]
    for segment in prompt_segments(assembled):
        name = describe(segment.source_id)
        title = f"`{name}`" if segment.source_id.startswith("L2:") else name
        kind = f"{segment.context_class.value}, {segment.message_role.value}"
        lines += [f"### {title}", "", f"{kind}, `{segment.digest}`"]
        lines += ["", fence(segment.content, _language(segment)), ""]
    return "\n".join(lines).rstrip("\n") + "\n"
