"""OpenTelemetry spans for context decisions (optional extra ``lychd-core[otel]``; a no-op without it)."""

from lychd_core.telemetry.spans import SPAN_NAME, AssemblySpan, AttributeValue, assembly_span, omission_attributes

__all__ = ["SPAN_NAME", "AssemblySpan", "AttributeValue", "assembly_span", "omission_attributes"]
