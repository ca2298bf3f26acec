"""Friendly constructors: ordinary Python input in, canonical records, queries and tombstones out."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.config import default_config
from lychd_core.errors import CorruptStoreError, InvalidQueryError, NonCanonicalError
from lychd_core.memory import (
    ExclusionReason,
    MemoryIndex,
    MemoryQuery,
    MemoryRecord,
    MemoryScope,
    ScopePolicy,
    Tombstone,
    expire,
    retrieve,
)
from lychd_core.memory.codec import record_from_json, stored_record
from tests.support.memories import memory_record

IDS = st.lists(st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True), min_size=1, max_size=8, unique=True)
FEATURES = st.dictionaries(st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True), st.integers(1, 10_000), max_size=8)


@settings(max_examples=80, deadline=None)
@given(events=IDS, supporting=IDS, features=FEATURES, data=st.data())
def test_any_permutation_or_collection_type_canonicalizes_to_the_same_digest(
    events: list[str], supporting: list[str], features: dict[str, int], data: st.DataObject
) -> None:
    supporting = [s for s in supporting if s not in events] or ["only-support"]
    canonical = memory_record(
        source_events=tuple(sorted(events)),
        supporting=tuple(sorted(supporting)),
        features=tuple(sorted(features.items())),
    )
    shuffled_events = data.draw(st.permutations(events))
    shuffled_pairs = data.draw(st.permutations(list(features.items())))
    as_kind = data.draw(st.sampled_from([list, tuple, set, frozenset]))
    doubled = shuffled_events + shuffled_events[:1]  # a repeated id is still one id
    friendly = memory_record(
        source_events=as_kind(doubled),
        supporting=set(data.draw(st.permutations(supporting))),
        features=data.draw(st.sampled_from([dict(shuffled_pairs), shuffled_pairs, tuple(shuffled_pairs)])),
    )
    assert friendly == canonical
    assert friendly.digest == canonical.digest
    assert friendly.source_events == tuple(sorted(events))
    reread = record_from_json(json.loads(json.dumps({**canonical.to_json(), "source_events": shuffled_events})))
    assert reread.digest == canonical.digest


@settings(max_examples=50, deadline=None)
@given(features=st.lists(st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True), max_size=8), data=st.data())
def test_query_feature_collections_canonicalize(features: list[str], data: st.DataObject) -> None:
    scope = MemoryScope(project="p")
    canonical = MemoryQuery(scope=scope, now=5, features=tuple(sorted(set(features))))
    friendly = MemoryQuery(
        scope=scope,
        now=5,
        features=data.draw(st.permutations(features)),
        required_features=set(features),
        claim_types=["fact", "lesson"],
    )
    assert friendly.features == canonical.features
    assert friendly.required_features == canonical.features
    assert friendly.claim_types == frozenset({"fact", "lesson"})
    assert MemoryQuery(scope=scope, now=5, features=list(reversed(features))).digest == canonical.digest


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"features": "python"}, NonCanonicalError),
        ({"required_features": ["Upper"]}, NonCanonicalError),
        ({"claim_types": "fact"}, InvalidQueryError),
    ],
)
def test_queries_still_refuse_ambiguous_input(changes: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        MemoryQuery(scope=MemoryScope(project="p"), now=1, **changes)


def test_replay_keeps_the_canonical_only_check() -> None:
    record = memory_record(source_events=("a", "b"), features={"x": 1, "y": 2})
    fields: dict[str, Any] = {
        name: getattr(record, name) for name in MemoryRecord.__dataclass_fields__ if not name.startswith("_")
    }
    assert MemoryRecord.canonical_only(**fields) == record
    for bad in ({"source_events": ["a", "b"]}, {"source_events": ("b", "a")}, {"features": (("y", 2), ("x", 1))}):
        with pytest.raises(NonCanonicalError):
            MemoryRecord.canonical_only(**{**fields, **bad})
    body = json.dumps({**record.to_json(), "source_events": ["b", "a"]})
    with pytest.raises(CorruptStoreError):
        stored_record(body, record.digest)


def test_tombstones_take_a_bare_or_upper_case_digest_but_replay_does_not() -> None:
    record = memory_record()
    hexpart = record.digest.removeprefix("sha256:")
    canonical = Tombstone("m1", 1, record.digest, 5, "wrong")
    assert Tombstone("m1", 1, hexpart.upper(), 5, "wrong") == canonical
    assert Tombstone("m1", 1, "SHA256:" + hexpart, 5, "wrong").digest == canonical.digest
    assert Tombstone.from_json(canonical.to_json(), canonical_only=True) == canonical
    with pytest.raises(NonCanonicalError):
        Tombstone.canonical_only("m1", 1, hexpart, 5, "wrong")
    with pytest.raises(NonCanonicalError):
        Tombstone.from_json({**canonical.to_json(), "prior_digest": hexpart.upper()}, canonical_only=True)


def test_a_query_with_a_role_profile_need_not_repeat_the_role() -> None:
    profile = default_config().role_profile("writer")
    query = MemoryQuery(scope=MemoryScope(project="p"), now=1, role_profile=profile)
    assert query.scope == MemoryScope(project="p")  # the asking role stays out of the scope
    named = MemoryQuery(scope=MemoryScope(project="p", role="writer"), now=1, role_profile=profile)
    assert named.scope_keys() == query.scope_keys()  # under include-broader both admit the same records
    with pytest.raises(InvalidQueryError, match="differs from the role profile"):
        MemoryQuery(scope=MemoryScope(project="p", role="reviewer"), now=1, role_profile=profile)


def test_exact_scope_with_a_role_profile_returns_memory_that_names_no_role() -> None:
    """Found in issue 26: the scope silently took the profile's role, so ``exact`` never
    matched a role-less memory through ``retrieve`` or ``lychd assemble``."""
    profile = default_config().role_profile("writer")
    roleless = memory_record(memory_id="roleless", scope=MemoryScope(project="p"))
    for_writer = memory_record(memory_id="for-writer", scope=MemoryScope(project="p", role="writer"))
    records = [roleless, for_writer]
    exact = MemoryQuery(scope=MemoryScope(project="p"), now=5, role_profile=profile, scope_policy=ScopePolicy.EXACT)
    for source in (records, MemoryIndex.build(records)):
        assert [r.memory_id for r in retrieve(source, exact).selected] == ["roleless"]
    exact_writer = MemoryQuery(
        scope=MemoryScope(project="p", role="writer"), now=5, role_profile=profile, scope_policy=ScopePolicy.EXACT
    )
    assert [r.memory_id for r in retrieve(records, exact_writer).selected] == ["for-writer"]
    broader = MemoryQuery(scope=MemoryScope(project="p"), now=5, role_profile=profile)
    assert sorted(r.memory_id for r in retrieve(records, broader).selected) == ["for-writer", "roleless"]


def test_exact_scope_admits_only_equal_scopes_and_include_broader_is_the_default() -> None:
    broad = memory_record(memory_id="broad", scope=MemoryScope(project="p"))
    exact = memory_record(memory_id="exact", scope=MemoryScope(project="p", repository="r"))
    scope = MemoryScope(project="p", repository="r")
    default = MemoryQuery(scope=scope, now=5)
    assert default.scope_policy is ScopePolicy.INCLUDE_BROADER
    assert [r.memory_id for r in retrieve([broad, exact], default).selected] == ["exact", "broad"]
    strict = MemoryQuery(scope=scope, now=5, scope_policy="exact")  # type: ignore[arg-type]
    for plan in (retrieve([broad, exact], strict), retrieve(MemoryIndex.build([broad, exact]), strict)):
        assert [r.memory_id for r in plan.selected] == ["exact"]
        assert plan.explain("broad").reason is ExclusionReason.SCOPE
        assert plan.explain("broad").detail.endswith("(exact-scope policy)")
    assert strict.to_json()["scope_policy"] == "exact" and strict.digest != default.digest
    with pytest.raises(InvalidQueryError, match="unknown scope_policy"):
        MemoryQuery(scope=scope, now=5, scope_policy="nearby")  # type: ignore[arg-type]


def test_index_records_hold_the_latest_revision_of_every_id_in_any_state() -> None:
    live = memory_record(memory_id="live")
    gone = expire(memory_record(memory_id="gone"), 3)
    index = MemoryIndex.build([live, memory_record(memory_id="gone"), gone])
    assert [(r.memory_id, r.revision, r.state.value) for r in index.records] == [
        ("gone", 2, "expired"),
        ("live", 1, "active"),
    ]
    posted = [index.records[p].memory_id for positions in index.scope_postings.values() for p in positions]
    assert posted == ["live"]
