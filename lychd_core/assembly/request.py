"""``AssemblyRequest``: everything one model call's context is assembled from, checked once.

``ContextOrchestrator.assemble`` takes these as keyword arguments and builds one; each
stage then reads only the fields it needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lychd_core.assembly.environment import Grant
from lychd_core.assembly.execution import ExecutionProjection
from lychd_core.blocks import Block
from lychd_core.digests import JsonValue
from lychd_core.errors import AssemblyError
from lychd_core.families import Compressor
from lychd_core.history import Message, check_continuation, compact_json
from lychd_core.labels import PrivatizationLabel
from lychd_core.memory import MemoryEvidence, RetrievalPlan
from lychd_core.projection.materials import MaterialRef


@dataclass(frozen=True)
class AssemblyRequest:
    """One call's inputs; see ``ContextOrchestrator.assemble`` for what each one means."""

    run_id: str
    session_id: str
    query: str
    identity: Sequence[Block] = ()
    codex: Sequence[MaterialRef | Block] = ()
    karma: Sequence[Block] = ()
    memory: Sequence[MemoryEvidence] | RetrievalPlan = ()
    history: Sequence[Message] = ()
    continuation: Sequence[Message] = ()
    grant: Grant | None = None
    role: str | None = None
    window: int | None = None
    reserve_output: int | None = None
    history_label: PrivatizationLabel | None = None
    continuation_label: PrivatizationLabel | None = None
    query_label: PrivatizationLabel | None = None
    target: str | None = None
    compress: bool | None = None
    semantic: Compressor | None = None
    execution: ExecutionProjection | None = None
    history_trim: int | None = None

    def __post_init__(self) -> None:
        if not self.run_id or not self.session_id:
            raise AssemblyError("run_id and session_id must be non-empty")
        if not self.query:
            raise AssemblyError("the query must be non-empty text")
        if not isinstance(self.history, (list, tuple)):
            raise AssemblyError(f"history must be a list of messages, got {type(self.history).__name__}")
        if self.execution is not None:
            object.__setattr__(self, "execution", ExecutionProjection.parse(self.execution))

    def evidence(self) -> tuple[MemoryEvidence, ...]:
        """The memory evidence offered, from a retrieval plan or given directly."""
        return self.memory.evidence() if isinstance(self.memory, RetrievalPlan) else tuple(self.memory)

    def memory_plan(self) -> dict[str, JsonValue] | None:
        """The retrieval plan as data, when memory came from one."""
        return self.memory.to_json(explain=False) if isinstance(self.memory, RetrievalPlan) else None

    def continuation_json(self) -> tuple[str, ...]:
        """The checked continuation, one compact JSON text per message (refused when not indivisible)."""
        return tuple(compact_json(message) for message in check_continuation(list(self.continuation)))
