"""OpenTelemetry spans for context decisions: one span per assembly (the orchestrator,
so the CLI too, and every adapter's model request).

Optional: install ``lychd-core[otel]``. Without ``opentelemetry`` importable, or with no
SDK tracer provider installed, every call here is a no-op and no attribute is computed.
Spans go to the global tracer provider, so Logfire and any OpenTelemetry SDK pick them up.

Attributes follow the OpenTelemetry GenAI semantic conventions where one exists
(``gen_ai.operation.name``, ``gen_ai.conversation.id``, ``gen_ai.conversation.compacted``),
else ``lychd.*``: budget, used and the counter kind, selected and omitted counts by reason,
prefix digest, joined label class, egress decision, compaction receipt digests. Never
content, a label's lineage or an error message (which may quote ids from the context):
a failure records only ``error.type``, the error's class name.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

SPAN_NAME = "assemble_context"
OPERATION = "assemble_context"
INSTRUMENTATION = "lychd_core"

AttributeValue = str | bool | int | float | Sequence[str] | Sequence[int]

_UNRESOLVED: Any = object()
_tracer: Any = _UNRESOLVED


def _resolve_tracer() -> Any:
    """The tracer of the global provider (a proxy that follows a provider set later), or ``None``.

    While the process has not imported ``opentelemetry.trace``, no provider can have been set,
    so there is nothing to record and nothing is imported: a cold ``lychd assemble`` does not
    pay the API's import (``benchmarks/bench_cold_assemble.py``, issue 30)."""
    global _tracer
    if _tracer is _UNRESOLVED:
        if "opentelemetry.trace" not in sys.modules:
            return None
        try:
            from opentelemetry import trace
        except ModuleNotFoundError:
            _tracer = None
        else:
            _tracer = trace.get_tracer(INSTRUMENTATION)
    return _tracer


class AssemblySpan:
    """What one assembly records on its span; ``recording`` is false when nothing listens."""

    __slots__ = ("_span",)

    def __init__(self, span: Any) -> None:
        self._span = span

    @property
    def recording(self) -> bool:
        return self._span is not None

    def set(self, attributes: Mapping[str, AttributeValue | None]) -> None:
        """Set every attribute that is not ``None`` (values are figures, digests and names only)."""
        if self._span is None:
            return
        for name, value in attributes.items():
            if value is not None:
                self._span.set_attribute(name, value)


_IDLE = AssemblySpan(None)


@contextmanager
def assembly_span(adapter: str, conversation_id: str | None = None) -> Iterator[AssemblySpan]:
    """One span around one assembly; yields an ``AssemblySpan`` (idle without a listener).

    An exception leaving the block marks the span failed with ``error.type`` only."""
    tracer = _resolve_tracer()
    if tracer is None:
        yield _IDLE
        return
    with tracer.start_as_current_span(SPAN_NAME, record_exception=False, set_status_on_exception=False) as span:
        if not span.is_recording():
            yield _IDLE
            return
        recorder = AssemblySpan(span)
        recorder.set(
            {"gen_ai.operation.name": OPERATION, "lychd.adapter": adapter, "gen_ai.conversation.id": conversation_id}
        )
        try:
            yield recorder
        except BaseException as exc:
            from opentelemetry.trace import Status, StatusCode

            span.set_attribute("error.type", type(exc).__name__)
            span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            raise


def omission_attributes(omitted: Mapping[str, int]) -> dict[str, AttributeValue | None]:
    """``lychd.omitted.count`` and one ``lychd.omitted.<reason>`` per reason."""
    attributes: dict[str, AttributeValue | None] = {"lychd.omitted.count": sum(omitted.values())}
    for reason, count in sorted(omitted.items()):
        attributes[f"lychd.omitted.{reason.replace('-', '_')}"] = count
    return attributes
