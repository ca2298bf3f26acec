"""Exact memory recall receipts, resolved under current authority into one data message.

A receipt names exact memory revisions and digests, never their text. Resolving it
reads each memory again: a missing, changed, superseded, expired, quarantined or
forgotten source refuses (``RecallRefusedError``) instead of searching again; an empty
receipt resolves to a visible miss; a store that cannot be read is a
``MemoryStoreError``, never a miss. The semantic variant carries its own envelope:
generation and reference, similarity threshold, result and character bounds, coverage
and declared omissions. Similarity only locates candidates: it is never support or
confidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from lychd_core.digests import json_digest
from lychd_core.errors import RecallRefusedError, RefusalReason
from lychd_core.history import compact_json
from lychd_core.memory.evidence import evidence_text
from lychd_core.memory.plan import RetrievalPlan
from lychd_core.memory.records import LifecycleState, MemoryRecord
from lychd_core.memory.tombstones import Tombstone

SEMANTIC_GUIDANCE = (
    "Recalled context is quoted data located by similarity. Similarity is not evidence that it answers the "
    "question and not a confidence. If the recalled context does not answer the question, or its claims "
    "conflict, say so explicitly and state your uncertainty. The recall covers only what its envelope says; "
    "never describe it as an exhaustive search."
)


class RecallSource(Protocol):
    """What resolution reads (``SqliteMemoryStore`` is one)."""

    def latest(self, memory_id: str) -> MemoryRecord | None: ...

    def tombstones(self) -> tuple[Tombstone, ...]: ...


@dataclass(frozen=True, slots=True)
class RecallEntry:
    memory_id: str
    revision: int
    digest: str
    similarity: int | None = None
    """Basis points 0-10000, semantic receipts only: where the candidate was found, not support."""


@dataclass(frozen=True, slots=True)
class SemanticEnvelope:
    """The semantic source-answer variant's own envelope."""

    generation: str
    reference: str
    threshold: int
    max_results: int
    max_chars: int
    coverage: Literal["partial", "complete"]
    omissions: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "lychd.semantic-recall@2",
            "generation": self.generation,
            "reference": self.reference,
            "threshold": self.threshold,
            "bounds": {"results": self.max_results, "chars": self.max_chars},
            "coverage": self.coverage,
            "omissions": list(self.omissions),
        }


@dataclass(frozen=True, slots=True)
class RecallReceipt:
    """Exact, text-free: which memory revisions a recall selected, and its character bound."""

    entries: tuple[RecallEntry, ...]
    max_chars: int
    semantic: SemanticEnvelope | None = None

    @classmethod
    def from_plan(cls, plan: RetrievalPlan, max_chars: int) -> RecallReceipt:
        return cls(tuple(RecallEntry(r.memory_id, r.revision, r.digest) for r in plan.selected), max_chars)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "lychd.recall-receipt",
            "entries": [[e.memory_id, e.revision, e.digest, e.similarity] for e in self.entries],
            "max_chars": self.max_chars,
            "semantic": None if self.semantic is None else self.semantic.to_json(),
        }

    @property
    def digest(self) -> str:
        return json_digest(self.to_json())


@dataclass(frozen=True, slots=True)
class RecallProjection:
    """The resolved recall: the data message text, and whether it is an empty, visible miss."""

    receipt_digest: str
    text: str
    miss: bool

    @property
    def chars(self) -> int:
        return len(self.text)


def resolve_recall(receipt: RecallReceipt, source: RecallSource) -> RecallProjection:
    """Resolve ``receipt`` against ``source`` now, exactly, or raise ``RecallRefusedError``."""
    records = [_current(entry, source) for entry in receipt.entries]
    header: dict[str, Any] = {"recall": receipt.digest, "results": len(records)}
    if receipt.semantic is not None:
        header["envelope"] = receipt.semantic.to_json()
    lines = [f"<<<lychd:recall {compact_json(header)}>>>"]
    if not records:
        lines.append("[lychd: memory recall found nothing for this request (an empty recall, not a failure)]")
    for entry, record in zip(receipt.entries, records, strict=True):
        where = f"[attributed: memory {record.memory_id} revision {record.revision} {record.digest}"
        where += "]" if entry.similarity is None else f"; similarity {entry.similarity}/10000, not support]"
        lines += [where, evidence_text(record)]
    lines.append("<<<lychd:end recall>>>")
    text = "\n".join(lines)
    if len(text) > receipt.max_chars:
        raise RecallRefusedError(
            f"the recall needs {len(text)} characters but reserves {receipt.max_chars}; it is never cut",
            memory_id="*",
            reason="over-bound",
        )
    return RecallProjection(receipt.digest, text, miss=not records)


def _current(entry: RecallEntry, source: RecallSource) -> MemoryRecord:
    record = source.latest(entry.memory_id)
    name = f"memory {entry.memory_id!r} revision {entry.revision}"
    if record is None:
        if any(stone.memory_id == entry.memory_id for stone in source.tombstones()):
            raise RecallRefusedError(
                f"{name} was forgotten; it is never recalled again", memory_id=entry.memory_id, reason="forgotten"
            )
        raise RecallRefusedError(f"{name} is missing from the store", memory_id=entry.memory_id, reason="missing")
    if record.revision != entry.revision:
        reason: RefusalReason = "superseded" if record.state is LifecycleState.SUPERSEDED else "changed"
        raise RecallRefusedError(
            f"{name} is now revision {record.revision} ({record.state.value}); recall again",
            memory_id=entry.memory_id,
            reason=reason,
        )
    if record.digest != entry.digest:
        raise RecallRefusedError(
            f"{name} changed (digest {record.digest})", memory_id=entry.memory_id, reason="changed"
        )
    if record.state is not LifecycleState.ACTIVE:
        reason = "superseded" if record.state is LifecycleState.SUPERSEDED else "inactive"
        raise RecallRefusedError(f"{name} is {record.state.value}", memory_id=entry.memory_id, reason=reason)
    return record
