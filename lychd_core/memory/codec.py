"""The JSON form of records, as written by ``to_json`` and read by ``lychd memory add``.

Reading is strict: unknown keys, duplicate keys, floats and wrong types are refused with
a message that names the record and the key. Optional keys may be left out; ``observed``
defaults to ``created``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lychd_core.digests import sha256_digest
from lychd_core.errors import CorruptStoreError, MemoryRecordError
from lychd_core.inputs import parse_json, read_input_text
from lychd_core.labels import PrivatizationLabel, label_from_json
from lychd_core.memory.records import Feedback, MemoryRecord, adopt_digest
from lychd_core.memory.scope import MemoryScope

MAX_RECORDS_BYTES = 64 * 1024 * 1024
REQUIRED_KEYS = frozenset(
    {"id", "revision", "scope", "claim_type", "claim", "source_provenance", "source_events", "confidence"}
)
OPTIONAL_KEYS = frozenset(
    {
        "supporting",
        "contradicting",
        "features",
        "token_estimate",
        "feedback",
        "created",
        "observed",
        "reviewed",
        "expires",
        "state",
        "quarantined_at",
        "superseded_by",
        "label",
    }
)


def _ids(where: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise MemoryRecordError(f"{where} must be a JSON list of ids, got {value!r}")
    return tuple(value)


def _features(where: str, value: object) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, Mapping):
        raise MemoryRecordError(f'{where} must be an object of feature name -> weight, e.g. {{"python": 5000}}')
    return tuple(value.items())  # in the JSON's order: the record canonicalizes, or refuses on replay


def _feedback(where: str, value: object) -> Feedback:
    if not isinstance(value, Mapping) or set(value) - {"positive", "negative"}:
        raise MemoryRecordError(f'{where} must be {{"positive": N, "negative": N}}, got {value!r}')
    return Feedback(positive=value.get("positive", 0), negative=value.get("negative", 0))


def _label(where: str, value: object) -> PrivatizationLabel | None:
    if value is None:
        return None
    try:
        return label_from_json(value)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise MemoryRecordError(f"{where}: {str(exc).splitlines()[0]}") from None


def record_from_json(data: object, where: str = "record", *, canonical_only: bool = False) -> MemoryRecord:
    """Build a checked record from its JSON object; every problem is a ``MemoryRecordError``.

    Lists and feature objects may come in any order; with ``canonical_only`` (replay of
    stored data) they must already be canonical, as ``to_json`` writes them."""
    if not isinstance(data, Mapping):
        raise MemoryRecordError(f"{where} must be a JSON object, got {type(data).__name__}")
    name = f"{where} {data.get('id')!r}" if isinstance(data.get("id"), str) else where
    missing = sorted(REQUIRED_KEYS - set(data))
    if missing:
        raise MemoryRecordError(f"{name} is missing required keys: {', '.join(missing)}")
    unknown = sorted(set(data) - REQUIRED_KEYS - OPTIONAL_KEYS)
    if unknown:
        allowed = ", ".join(sorted(REQUIRED_KEYS | OPTIONAL_KEYS))
        raise MemoryRecordError(f"{name} has unknown keys {unknown}; allowed keys: {allowed}")
    if "created" not in data:
        raise MemoryRecordError(f"{name} needs 'created', the logical observation at which it was derived")
    if "token_estimate" not in data:
        raise MemoryRecordError(f"{name} needs 'token_estimate', the caller's token estimate for the claim")
    fields: dict[str, Any] = {
        "memory_id": data["id"],
        "revision": data["revision"],
        "scope": MemoryScope.from_json(data["scope"], f"{name}.scope"),
        "claim_type": data["claim_type"],
        "claim": data["claim"],
        "source_provenance": data["source_provenance"],
        "source_events": _ids(f"{name}.source_events", data["source_events"]),
        "supporting": _ids(f"{name}.supporting", data.get("supporting", [])),
        "contradicting": _ids(f"{name}.contradicting", data.get("contradicting", [])),
        "confidence": data["confidence"],
        "features": _features(f"{name}.features", data.get("features", {})),
        "token_estimate": data["token_estimate"],
        "feedback": _feedback(f"{name}.feedback", data.get("feedback", {})),
        "created": data["created"],
        "observed": data.get("observed", data["created"]),
        "reviewed": data.get("reviewed"),
        "expires": data.get("expires"),
        "state": data.get("state", "active"),
        "quarantined_at": data.get("quarantined_at"),
        "superseded_by": data.get("superseded_by"),
        "label": _label(f"{name}.label", data.get("label")),
    }
    try:
        return MemoryRecord.canonical_only(**fields) if canonical_only else MemoryRecord(**fields)
    except MemoryRecordError as exc:
        raise type(exc)(f"{where}: {exc}") from None


def parse_records_json(text: str, source: str = "<json>") -> tuple[MemoryRecord, ...]:
    """Parse one record object or a list of them."""
    data = parse_json(text, source=source, error=MemoryRecordError, allow_floats=False)
    items = data if isinstance(data, list) else [data]
    if not items:
        raise MemoryRecordError(f"{source}: an empty list holds no records")
    return tuple(record_from_json(item, f"{source}[{index}]") for index, item in enumerate(items))


def load_records_file(path: str | Path) -> tuple[MemoryRecord, ...]:
    text = read_input_text(str(path), what="memory records", max_bytes=MAX_RECORDS_BYTES, error=MemoryRecordError)
    return parse_records_json(text, str(path))


def stored_record(body: str, digest: str) -> MemoryRecord:
    """A record read back from a store, verified against the digest computed when it was written.

    A body edited inside the store no longer hashes to its digest and is refused as corrupt,
    so retrieval never serves content under a digest it does not have.
    """
    if not isinstance(body, str) or not isinstance(digest, str) or sha256_digest(body.encode("utf-8")) != digest:
        raise CorruptStoreError(
            f"a stored memory record does not match its digest {digest!r} (edited outside lychd?); "
            "run `lychd memory check` and restore the store from a backup"
        )
    try:
        return adopt_digest(record_from_json(json.loads(body), "stored record", canonical_only=True), digest)
    except (ValueError, TypeError) as exc:  # MemoryRecordError is a ValueError
        raise CorruptStoreError(f"a stored memory record no longer parses ({exc}); run `lychd memory check`") from None


def stored_row(record: MemoryRecord) -> tuple[str, int, str, int, str]:
    """``(memory_id, revision, digest, observed, body)`` as the store writes it."""
    body, digest = record.encoded()
    return (record.memory_id, record.revision, digest, record.observed, body)
