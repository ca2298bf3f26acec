"""Labels of one outbound model request, for the egress gate in an integration.

Floor blocks carry their own labels; settled history, the current exchange and the
query carry the labels the caller vouches for in ``CallLabels`` (unlabelled parts are
restricted with unknown lineage, so a remote target refuses them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lychd_core.blocks import Block
from lychd_core.labels import PrivatizationLabel


@dataclass(frozen=True, slots=True)
class CallLabels:
    """Caller labels for what is not a Block: settled history, the current exchange, the query."""

    history: PrivatizationLabel | None = None
    continuation: PrivatizationLabel | None = None
    query: PrivatizationLabel | None = None

    def __post_init__(self) -> None:
        for name in ("history", "continuation", "query"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, PrivatizationLabel):
                raise TypeError(f"CallLabels.{name} must be a PrivatizationLabel or None, got {type(value).__name__}")


def request_node_labels(
    blocks: Iterable[Block], labels: CallLabels, *, kept_groups: int, continuation: bool
) -> dict[str, PrivatizationLabel]:
    """The label of every part one request sends, by node id (floor blocks as ``L<layer>:<key>``)."""
    unknown = PrivatizationLabel.restricted_unknown()
    nodes = {f"L{int(block.layer)}:{block.key}": block.label for block in blocks}
    if kept_groups:
        nodes["history"] = labels.history or unknown
    if continuation:
        nodes["continuation"] = labels.continuation or unknown
    nodes["query"] = labels.query or unknown
    return nodes
