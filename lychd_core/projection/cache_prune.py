"""``lychd cache prune``: the declared policy, and what a prune removed (or would remove).

Policy: **every row stored more than ``--older-than`` ago goes**, in every table of the
projection cache (entries, media decisions, file records, token counts, count records and
run records), in one transaction. "Stored" is the time the row was last written: a warm run
reads without writing, so a row still in use but stored before the cutoff goes too, and the
next run projects (or counts) it again, once, and stores it anew. Nothing in a cache is
ever needed for correctness (a miss is recomputed), so the only cost of pruning too much is
one cold run. Rows of a cache made before schema 5 carry no time and count as the oldest.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from lychd_core.errors.projection import CachePruneInputError

PRUNED_TABLES = ("projections", "media_decisions", "file_records", "token_counts", "count_records", "run_records")
"""Every table a prune looks at, in the order it deletes from them (all in one transaction)."""

UNITS = {"s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800}
MAX_AGE_S = 100 * 365 * 86_400
_AGE = re.compile(r"([0-9]{1,12})([smhdw])")


@dataclass(frozen=True, slots=True)
class TableCount:
    removed: int
    kept: int


@dataclass(frozen=True, slots=True)
class PruneReport:
    """Per table, the rows removed (or, with ``dry_run``, that would be) and the rows kept."""

    cutoff_ns: int
    dry_run: bool
    tables: dict[str, TableCount] = field(default_factory=dict)

    @property
    def removed(self) -> int:
        return sum(count.removed for count in self.tables.values())

    def to_json(self) -> dict[str, object]:
        return {
            "cutoff_ns": self.cutoff_ns,
            "dry_run": self.dry_run,
            "removed": self.removed,
            "tables": {name: {"removed": c.removed, "kept": c.kept} for name, c in self.tables.items()},
        }


def parse_age(text: str) -> int:
    """Seconds in an age such as ``45s``, ``90m``, ``12h``, ``30d`` or ``2w`` (0 to 100 years)."""
    found = _AGE.fullmatch(text.strip())
    if found is None:
        raise CachePruneInputError(
            f"--older-than {text!r} is not an age: give a whole number and one unit of s, m, h, d or w "
            "(e.g. 30d for thirty days, 12h, 0s for everything)"
        )
    seconds = int(found.group(1)) * UNITS[found.group(2)]
    if seconds > MAX_AGE_S:
        raise CachePruneInputError(f"--older-than {text!r} is more than 100 years; nothing could be that old")
    return seconds


def cutoff_of(age_s: int, now_ns: int | None = None) -> int:
    """The write time before which a row goes: ``age_s`` seconds before now."""
    return (time.time_ns() if now_ns is None else now_ns) - age_s * 1_000_000_000
