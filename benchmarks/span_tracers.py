"""Tracers the adapter benchmarks switch between, side by side in one process.

``off``: no OpenTelemetry (as if not installed); ``api``: the API's no-op tracer (installed,
no SDK); ``sdk``: an SDK tracer exporting every span to memory (cleared as it goes).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lychd_core.telemetry import spans

TRACERS = ("off", "api", "sdk")
_EXPORTER = InMemorySpanExporter()
_PROVIDER = TracerProvider()
_PROVIDER.add_span_processor(SimpleSpanProcessor(_EXPORTER))
_BY_NAME: dict[str, Any] = {"off": None, "api": trace.NoOpTracer(), "sdk": _PROVIDER.get_tracer("lychd_core")}


@contextmanager
def use_tracer(name: str) -> Iterator[None]:
    before = spans._tracer
    spans._tracer = _BY_NAME[name]
    try:
        yield
    finally:
        spans._tracer = before
        _EXPORTER.clear()


def recorded() -> int:
    """Spans the SDK tracer holds now (cleared after each ``use_tracer`` block)."""
    return len(_EXPORTER.get_finished_spans())
