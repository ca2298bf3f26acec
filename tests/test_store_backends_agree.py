"""Same inputs, same outputs on SQLite and PostgreSQL: plans, explanations, index digests, projected bytes."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lychd_core.config import default_config
from lychd_core.memory import MemoryQuery, MemoryScope
from lychd_core.memory.lifecycle import quarantine, review
from lychd_core.memory.protocol import MemoryStore
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Projector
from lychd_core.registry import get_registry
from lychd_core.stores.postgres import PostgresMemoryStore, PostgresProjectionCache
from lychd_core.stores.sqlite import SqliteMemoryStore
from lychd_core.stores.sqlite.cache import ProjectionCache
from lychd_core.testing.postgres import PostgresServer
from lychd_core.testing.store_contract import contract_record

IDS = ("a", "b", "c", "d")
FEATURES = ("release", "deploy", "tests")
_schemas = itertools.count()

operations = st.lists(
    st.one_of(
        st.tuples(
            st.just("add"),
            st.sampled_from(IDS),
            st.integers(0, 10_000),
            st.sets(st.sampled_from(FEATURES), max_size=2),
            st.sampled_from(("x", "y")),
        ),
        st.tuples(st.just("review"), st.sampled_from(IDS), st.integers(1, 5)),
        st.tuples(st.just("quarantine"), st.sampled_from(IDS), st.integers(1, 5)),
        st.tuples(st.just("forget"), st.sampled_from(IDS), st.integers(1, 5)),
    ),
    min_size=1,
    max_size=14,
)


def _apply(store: MemoryStore, operation: tuple[Any, ...]) -> str:
    """The outcome of one operation, as text: what it returned or which typed error it raised."""
    kind, memory_id = operation[0], operation[1]
    try:
        if kind == "add":
            _, _, confidence, features, project = operation
            record = contract_record(
                memory_id,
                confidence=confidence,
                scope=MemoryScope(project=project),
                features=tuple((name, 5000) for name in sorted(features)),
            )
            return repr(store.add(record))
        if kind == "review":
            return store.transition(memory_id, lambda r: review(r, r.observed + operation[2])).digest
        if kind == "quarantine":
            return store.transition(memory_id, lambda r: quarantine(r, r.observed + operation[2])).digest
        return repr(store.forget(memory_id, "asked", 50 + operation[2]).to_json())
    except Exception as exc:  # compared by type and message across backends
        return f"{type(exc).__name__}: {str(exc).split(' in ')[0]}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations)
def test_both_backends_agree_on_every_outcome_plan_and_digest(
    ops: list[tuple[Any, ...]], lychd_postgresql: PostgresServer, tmp_path: Path
) -> None:
    number = next(_schemas)
    sqlite = SqliteMemoryStore.open(tmp_path / f"m{number}.sqlite3")
    postgres = PostgresMemoryStore.open(lychd_postgresql.dsn(), schema=f"agree{number}", pool_size=1)
    with sqlite, postgres:
        for operation in ops:
            assert _apply(sqlite, operation) == _apply(postgres, operation), operation
        assert sqlite.index().digest == postgres.index().digest
        assert sqlite.last_observation() == postgres.last_observation()
        for project, features in (("x", ("release",)), ("y", ("deploy", "tests")), ("x", ())):
            query = MemoryQuery(scope=MemoryScope(project=project), now=60, features=features, limit=2)
            mine, theirs = sqlite.query(query), postgres.query(query)
            assert mine.digest == theirs.digest
            assert mine.to_json(explain=True) == theirs.to_json(explain=True)


def test_projected_bytes_are_the_same_through_either_cache(lychd_postgresql: PostgresServer, tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("class A:\n    def f(self, x):\n        return x\n")
    (tmp_path / "notes.md").write_text("# Notes\n\nsome text\n")
    workspace = Workspace(tmp_path)
    refs = [MaterialRef.for_current(workspace, name) for name in ("mod.py", "notes.md")]
    caches = [
        ProjectionCache(tmp_path / "state" / "p.sqlite3"),
        PostgresProjectionCache(lychd_postgresql.dsn(), schema="agreecache", key_path=tmp_path / "state" / "k"),
    ]
    blocks = []
    for cache in caches:
        projector = Projector(default_config(), get_registry(), workspace, cache)
        cold, warm = projector.project_many(refs), projector.project_many(refs)
        assert [c.cached for c in warm] == [True, True]
        assert [c.block for c in cold] == [c.block for c in warm]
        blocks.append([c.block for c in warm])
        cache.close()
    assert blocks[0] == blocks[1]
