"""Privacy labels on the command line: caller label arguments and how labels are shown."""

from __future__ import annotations

import argparse
from typing import Any

from lychd_core.assembly import AssembledContext
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy import label_sources

CLASSES = ("public", "internal", "private", "restricted")
SHOWN_SOURCES = 4


def add_label_arguments(parser: Any) -> None:
    group = parser.add_argument_group("privacy (labels and the egress gate)")
    group.add_argument("--target", help="egress target the context must pass (from [egress]); refusal exits 1")
    for part in ("query", "history", "continuation"):
        group.add_argument(
            f"--{part}-label",
            choices=CLASSES,
            help=f"privacy class you vouch for on the {part} (default: restricted, lineage unknown)",
        )


def caller_labels(args: argparse.Namespace) -> dict[str, PrivatizationLabel | None]:
    """The labels the caller vouched for, by part: ``query``, ``history``, ``continuation``."""
    labels: dict[str, PrivatizationLabel | None] = {}
    for part in ("query", "history", "continuation"):
        name = getattr(args, f"{part}_label")
        labels[part] = (
            None
            if name is None
            else PrivatizationLabel(
                privacy_class=PrivacyClass[name.upper()],
                weight=0,
                material_parents=frozenset({f"cli:{part}"}),
                lineage_known=True,
            )
        )
    return labels


def label_cell(assembled: AssembledContext, node_id: str) -> str:
    """A node's label class, selected or omitted (``?`` marks unknown lineage)."""
    label = assembled.candidate_labels.get(node_id)
    if label is None:
        return ""
    return label.privacy_class.name.lower() + ("" if label.lineage_known else "?")


def joined_label_line(assembled: AssembledContext) -> str:
    """The joined label and which nodes made it what it is."""
    label = assembled.label
    sources = label_sources(assembled.node_labels)
    line = f"joined label: {label.privacy_class.name} weight {label.weight}"
    line += "" if label.lineage_known else " (lineage unknown)"
    why = [f"class {label.privacy_class.name}"] + ([] if label.lineage_known else ["lineage unknown"])
    for key in why:
        nodes = sources.get(key, [])
        more = f" and {len(nodes) - SHOWN_SOURCES} more" if len(nodes) > SHOWN_SOURCES else ""
        line += f"; {key} from {', '.join(nodes[:SHOWN_SOURCES])}{more}"
    return line
