"""Record constructors, the JSON codec, and the no-wall-clock rule."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lychd_core.memory
from lychd_core.digests import canonical_json, json_digest
from lychd_core.errors import (
    EmptyScopeError,
    EvidenceConflictError,
    InvalidExpiryError,
    InvalidRevisionError,
    InvalidTransitionError,
    MemoryRecordError,
    MissingSourceEventError,
    NonCanonicalError,
    ScoreOutOfRangeError,
    StaleObservationError,
    UnknownClaimTypeError,
)
from lychd_core.memory import ClaimType, Feedback, LifecycleState, MemoryScope, parse_records_json
from lychd_core.memory.checks import FEATURE_RE, ID_RE
from lychd_core.vocabulary import Provenance
from tests.support.memories import memory_record

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "memory.json"


make = memory_record


def test_a_valid_record_is_immutable_and_digested() -> None:
    record = make(features=(("build", 5000), ("python", 100)), supporting=("e1", "e2"), contradicting=("e3",))
    assert record.digest == json_digest(record.to_json())
    assert record.canonical_bytes() == canonical_json(record.to_json())
    assert make(features=(("build", 5000), ("python", 100)), supporting=("e1", "e2"), contradicting=("e3",)) == record
    with pytest.raises(AttributeError):
        record.confidence = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"scope": MemoryScope()}, EmptyScopeError),
        ({"source_events": ()}, MissingSourceEventError),
        ({"supporting": ("e1",), "contradicting": ("e1",)}, EvidenceConflictError),
        ({"features": (("a", 1), ("a", 2))}, NonCanonicalError),
        ({"features": [("a", 1), ("a", True)]}, NonCanonicalError),
        ({"features": (("Upper", 1),)}, NonCanonicalError),
        ({"features": (("a", 0),)}, ScoreOutOfRangeError),
        ({"features": (("a", 1, 2),)}, NonCanonicalError),
        ({"features": "python"}, NonCanonicalError),
        ({"source_events": "ev1"}, NonCanonicalError),
        ({"source_events": ["ev1", 7]}, NonCanonicalError),
        ({"supporting": ["e1", "e2"], "contradicting": {"e2"}}, EvidenceConflictError),
        ({"reviewed": 0, "created": 1}, StaleObservationError),
        ({"observed": 0, "created": 1}, StaleObservationError),
        ({"reviewed": 5, "observed": 4}, StaleObservationError),
        ({"expires": 1}, InvalidExpiryError),
        ({"expires": 0}, InvalidExpiryError),
        ({"revision": 0}, InvalidRevisionError),
        ({"revision": -3}, InvalidRevisionError),
        ({"confidence": 10_001}, ScoreOutOfRangeError),
        ({"confidence": -1}, ScoreOutOfRangeError),
        ({"confidence": True}, ScoreOutOfRangeError),
        ({"token_estimate": 0}, ScoreOutOfRangeError),
        ({"feedback": Feedback(positive=1)}, None),
        ({"claim_type": "rumour"}, UnknownClaimTypeError),
        ({"source_provenance": Provenance.MEMORY}, NonCanonicalError),
        ({"claim": "   "}, NonCanonicalError),
        ({"memory_id": "has space"}, NonCanonicalError),
        ({"state": LifecycleState.QUARANTINED}, InvalidTransitionError),
        ({"state": LifecycleState.SUPERSEDED}, InvalidTransitionError),
        ({"superseded_by": "m2"}, InvalidTransitionError),
        ({"state": LifecycleState.SUPERSEDED, "superseded_by": "m1"}, InvalidTransitionError),
        ({"state": "dormant"}, InvalidTransitionError),
    ],
)
def test_constructor_rejects(changes: dict[str, Any], error: type[Exception] | None) -> None:
    if error is None:
        make(**changes)
        return
    with pytest.raises(error) as caught:
        make(**changes)
    assert isinstance(caught.value, MemoryRecordError)


def test_feedback_counts_are_bounded() -> None:
    with pytest.raises(ScoreOutOfRangeError):
        Feedback(positive=-1)
    with pytest.raises(ScoreOutOfRangeError):
        Feedback(negative=10**12)


def test_scope_values_are_checked_and_specificity_counts_named_fields() -> None:
    with pytest.raises(NonCanonicalError):
        MemoryScope(project=" padded ")
    with pytest.raises(NonCanonicalError):
        MemoryScope(project="")
    scope = MemoryScope(project="p", repository="r")
    assert scope.specificity == 2
    assert scope.applies_to(MemoryScope(project="p", repository="r", actor="a"))
    assert not scope.applies_to(MemoryScope(project="p"))
    assert not scope.applies_to(MemoryScope(project="p", repository="other"))
    assert len(MemoryScope(project="p", repository="r", role="writer").compatible_keys()) == 8


def test_json_round_trip_and_defaults() -> None:
    record = make(features=(("a", 1),), reviewed=1, expires=9)
    assert parse_records_json(json.dumps(record.to_json())) == (record,)
    minimal = {
        "id": "m2",
        "revision": 1,
        "scope": {"project": "p"},
        "claim_type": "lesson",
        "claim": "x",
        "source_provenance": "tool",
        "source_events": ["e"],
        "confidence": 1,
        "token_estimate": 1,
        "created": 4,
    }
    (parsed,) = parse_records_json(json.dumps(minimal))
    assert parsed.observed == 4 and parsed.state is LifecycleState.ACTIVE and parsed.features == ()


@pytest.mark.parametrize(
    "text",
    [
        '{"id": "m", "id": "n"}',
        '{"id": "m", "revision": 1.5}',
        '{"id": "m", "confidence": NaN}',
        "[]",
        "{not json",
        '{"id": "m"}',
    ],
)
def test_json_reader_refuses_malformed_input(text: str) -> None:
    with pytest.raises(MemoryRecordError):
        parse_records_json(text)


def test_json_reader_refuses_unknown_keys_and_wrong_shapes() -> None:
    base = make().to_json()
    with pytest.raises(MemoryRecordError, match="unknown keys"):
        parse_records_json(json.dumps({**base, "colour": "red"}))
    with pytest.raises(MemoryRecordError, match="unknown keys"):
        parse_records_json(json.dumps({**base, "scope": {"project": "p", "galaxy": "x"}}))
    with pytest.raises(MemoryRecordError):
        parse_records_json(json.dumps({**base, "features": ["a"]}))
    with pytest.raises(UnknownClaimTypeError):
        parse_records_json(json.dumps({**base, "claim_type": "gossip"}))


def test_the_documented_example_parses() -> None:
    records = parse_records_json(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE))
    assert len(records) == 3
    assert {r.claim_type for r in records} == {ClaimType.PREFERENCE, ClaimType.LESSON, ClaimType.WARNING}


CLOCK_MODULES = {"time", "datetime", "calendar", "zoneinfo"}


def test_memory_package_never_reads_the_wall_clock() -> None:
    package = Path(lychd_core.memory.__file__).parent
    sources = sorted(package.glob("*.py"))
    assert len(sources) > 10
    for source in sources:
        text = source.read_text(encoding="utf-8")
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                names = {(node.module or "").split(".")[0]}
            else:
                continue
            assert not names & CLOCK_MODULES, f"{source.name} imports {names & CLOCK_MODULES}"
        for sql_clock in ("CURRENT_TIMESTAMP", "CURRENT_TIME", "CURRENT_DATE", "julianday", "strftime("):
            assert sql_clock not in text, f"{source.name} uses SQLite's clock ({sql_clock})"


ids = st.from_regex(ID_RE, fullmatch=True)
scope_values = st.none() | st.text(min_size=1, max_size=12).filter(lambda v: v == v.strip() and v.isprintable())


@settings(max_examples=150, deadline=None)
@given(
    memory_id=ids,
    claim=st.text(min_size=1, max_size=60).filter(lambda text: bool(text.strip())),
    scope=st.tuples(scope_values, scope_values, scope_values, scope_values, scope_values),
    events=st.sets(ids, min_size=1, max_size=3),
    evidence=st.sets(ids, max_size=4),
    features=st.dictionaries(st.from_regex(FEATURE_RE, fullmatch=True), st.integers(1, 10_000), max_size=4),
    numbers=st.tuples(st.integers(0, 10_000), st.integers(1, 10**6), st.integers(0, 2**62 - 10)),
    optional=st.tuples(st.booleans(), st.booleans()),
)
def test_fast_canonical_bytes_equal_canonical_json(
    memory_id: str,
    claim: str,
    scope: tuple[str | None, ...],
    events: set[str],
    evidence: set[str],
    features: dict[str, int],
    numbers: tuple[int, int, int],
    optional: tuple[bool, bool],
) -> None:
    if all(value is None for value in scope):
        scope = ("p", *scope[1:])
    split = sorted(evidence)
    confidence, tokens, created = numbers
    record = make(
        memory_id=memory_id,
        claim=claim,
        scope=MemoryScope(*scope),
        source_events=tuple(sorted(events)),
        supporting=tuple(split[::2]),
        contradicting=tuple(split[1::2]),
        features=tuple(sorted(features.items())),
        confidence=confidence,
        token_estimate=tokens,
        created=created,
        observed=created + 5,
        reviewed=created + 1 if optional[0] else None,
        expires=created + 9 if optional[1] else None,
        state=LifecycleState.SUPERSEDED if optional[0] else LifecycleState.ACTIVE,
        superseded_by="next" if optional[0] else None,
    )
    assert record.canonical_bytes() == canonical_json(record.to_json())
    assert record.digest == json_digest(record.to_json())
