"""Token counts stored with projections: a warm run reads them instead of calling the counter.

Every test runs real assemblies over a workspace with the embedded SQLite projection cache
(the PostgreSQL backend passes the same store contract, ``tests/test_store_contract.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from lychd_core.assembly import ContextOrchestrator
from lychd_core.blocks import Layer
from lychd_core.config import default_config, parse_config
from lychd_core.digests import sha256_digest, text_digest
from lychd_core.families import PluginFamily, TokenCountKind
from lychd_core.plugins import PluginSource
from lychd_core.projection.cache_counts import count_row, decode_counts
from lychd_core.projection.materials import MaterialRef
from lychd_core.registry import Registry, get_registry
from lychd_core.stores.sqlite import cache_file
from lychd_core.stores.sqlite.cache import ProjectionCache
from lychd_core.tokens.persisted import attach_counts
from lychd_core.tokens.resolve import resolve_counter
from tests.support.sqlite_files import connected

FILES = {"a.py": "def alpha():\n    return 1\n" * 20, "b.md": "# Notes\n\nSome prose, words and more.\n" * 15}


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Counting:
    """Words + 1; records every text it is asked to count."""

    name = "test.counting"
    revision = 1
    options_model = NoOptions
    kind = TokenCountKind.ESTIMATE
    tokenizer = "words plus one"
    calls: ClassVar[list[str]] = []

    def count(self, text: str, options: BaseModel) -> int:
        Counting.calls.append(text)
        return len(text.split()) + 1


class CountingTwo(Counting):
    revision = 2


def registry(counter: object) -> Registry:
    reg = Registry()
    for entry in get_registry().all():
        if entry.family is not PluginFamily.TOKEN_COUNTER or entry.name != "test.counting":
            reg.add(entry.family, entry.obj, PluginSource(entry.distribution, entry.version))
    reg.add(PluginFamily.TOKEN_COUNTER, counter, PluginSource("test-counting", "1"))
    return reg


def config(counter: str = "test.counting@1") -> Any:
    data = default_config().model_dump(mode="python")
    data["tokens"] = {"counter": counter}
    return parse_config(data, "test")


def workspace(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def refs() -> list[MaterialRef]:
    return [MaterialRef(path=name, digest=sha256_digest(text.encode())) for name, text in FILES.items()]


def run(root: Path, plugin: object = None, counter: str = "test.counting@1") -> tuple[list[str], Any, Any]:
    """One assembly in a fresh orchestrator (as a new process would): the texts counted, the result, the counter."""
    Counting.calls.clear()
    with ContextOrchestrator(config(counter), registry=registry(plugin or Counting()), workspace=root) as orchestrator:
        assembled = orchestrator.assemble(run_id="r", session_id="s", query="what does alpha return?", codex=refs())
        return list(Counting.calls), assembled, orchestrator.token_counter()


def codex_texts(assembled: Any) -> set[str]:
    return {block.text for block in assembled.floor if block.layer is Layer.CODEX}


def estimates(assembled: Any) -> list[int]:
    return [node.token_estimate for node in assembled.plan.graph.nodes]


def cache_of(root: Path) -> Path:
    return root / ".lychd" / "projections.sqlite3"


def test_a_warm_run_reads_the_counts_and_never_counts_a_projection_again(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    cold_calls, cold, cold_counter = run(root)
    texts = codex_texts(cold)
    assert len(texts) == 2 and texts <= set(cold_calls) and cold_counter.stats().stored == 0
    warm_calls, warm, warm_counter = run(root)
    assert not texts & set(warm_calls)  # the counter was never asked for a projected text
    assert warm_counter.stats().stored == 2
    assert estimates(warm) == estimates(cold)


def test_another_counter_revision_never_reuses_a_count(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    run(root)
    calls, assembled, counter = run(root, CountingTwo(), "test.counting@2")
    assert codex_texts(assembled) <= set(calls) and counter.stats().stored == 0


def test_a_warm_run_is_served_from_one_count_record(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    run(root)
    with connected(cache_of(root)) as conn:
        conn.execute("DELETE FROM token_counts")  # the record alone serves a warm run
        assert conn.execute("SELECT count(*) FROM count_records").fetchone()[0] == 1
    calls, warm, counter = run(root)
    assert not codex_texts(warm) & set(calls) and counter.stats().stored == 2


def _forge_records(path: Path, count: int) -> None:
    """Every count in every record set to ``count``, its MAC left as it was (all one can do without the key)."""
    with connected(path) as conn:
        for rowid, payload in conn.execute("SELECT rowid, counts FROM count_records").fetchall():
            forged = [count for _ in orjson.loads(payload)]
            conn.execute("UPDATE count_records SET counts = ? WHERE rowid = ?", (orjson.dumps(forged), rowid))


def test_a_tampered_record_is_a_miss_and_the_rows_serve(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    _, cold, _ = run(root)
    _forge_records(cache_of(root), 1)
    calls, warm, counter = run(root)
    assert not codex_texts(warm) & set(calls) and counter.stats().stored == 2  # from the rows, never the record
    assert estimates(warm) == estimates(cold)
    with connected(cache_of(root)) as conn:  # the record was written again, and now verifies
        (counter_id, key), *others = conn.execute("SELECT counter, set_digest FROM count_records").fetchall()
    assert not others and counter_id == counter.identity
    found = ProjectionCache(cache_of(root)).count_record(counter.identity, key)
    assert found is not None and sorted(found) == sorted(counter.known(text) for text in codex_texts(warm))


def test_a_tampered_count_is_refused_and_counted_again(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    _, cold, _ = run(root)
    _forge_records(cache_of(root), 1)
    with connected(cache_of(root)) as conn:
        assert conn.execute("UPDATE token_counts SET count = 1").rowcount == 2
    calls, warm, counter = run(root)
    assert codex_texts(warm) <= set(calls) and counter.stats().stored == 0  # the record and both rows failed
    assert estimates(warm) == estimates(cold)
    calls, _, counter = run(root)  # the recount repaired the rows and the record
    assert not codex_texts(warm) & set(calls) and counter.stats().stored == 2


def test_a_read_only_cache_serves_counts_and_stores_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = workspace(tmp_path)
    run(root)
    path = cache_of(root)
    with connected(path) as conn:
        conn.execute("DELETE FROM count_records")
        conn.execute("DELETE FROM token_counts WHERE text_digest = (SELECT min(text_digest) FROM token_counts)")
    monkeypatch.setattr(cache_file, "writable", lambda _: False)  # as a user who may not write it (see read_only)
    _, _, counter = run(root)
    assert counter.stats().stored == 1  # the one row left is served; the other text is counted, not stored
    with connected(path) as conn:
        assert conn.execute("SELECT count(*) FROM token_counts").fetchone()[0] == 1
        assert conn.execute("SELECT count(*) FROM count_records").fetchone()[0] == 0


def test_a_cache_made_before_counts_were_kept_stays_warm_and_gains_the_table(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    run(root)
    with connected(cache_of(root)) as conn:
        conn.execute("DROP TABLE token_counts")
        conn.execute("DROP TABLE count_records")
    calls, assembled, counter = run(root)  # entries still served; counts missed, counted and stored
    assert codex_texts(assembled) <= set(calls) and counter.stats().stored == 0
    _, _, counter = run(root)
    assert counter.stats().stored == 2


def _as_schema_4(path: Path) -> None:
    with connected(path) as conn:
        conn.execute("DROP TABLE count_records")
        for table in cache_file.STAMPED:
            conn.execute(f"ALTER TABLE {table} DROP COLUMN written")
        conn.execute("PRAGMA user_version = 4")


def test_a_schema_4_cache_is_migrated_in_place_and_served_read_only_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = workspace(tmp_path)
    run(root)
    _as_schema_4(cache_of(root))
    with monkeypatch.context() as patch:
        patch.setattr(cache_file, "writable", lambda _: False)
        calls, assembled, counter = run(root)  # read-only: entries and rows served, nothing written
        assert not codex_texts(assembled) & set(calls) and counter.stats().stored == 2
    with connected(cache_of(root)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 4
    calls, assembled, counter = run(root)  # a writer migrates it: rows kept warm, a record written
    assert not codex_texts(assembled) & set(calls) and counter.stats().stored == 2
    with connected(cache_of(root)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == cache_file.SCHEMA_VERSION == 5
        assert conn.execute("SELECT count(*) FROM count_records").fetchone()[0] == 1
        assert conn.execute("SELECT min(written) FROM projections").fetchone()[0] == 0  # kept, not rewritten


def test_calibrated_and_reference_counts_are_not_stored(tmp_path: Path) -> None:
    data = default_config().model_dump(mode="python")
    data["tokens"] = {"counter": "calibrated@1"}
    calibrated = resolve_counter(parse_config(data, "test"), get_registry())
    reference = resolve_counter(default_config(), get_registry())
    assert calibrated.identity == "" and reference.identity == ""
    cache = ProjectionCache(tmp_path / "p.sqlite3")
    assert attach_counts(cache, calibrated, []).stored == 0
    assert resolve_counter(config("o200k_base@1"), get_registry()).identity.startswith(
        "o200k_base@1 tiktoken o200k_base sha256:"
    )


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=200), count=st.integers(min_value=0, max_value=1 << 40), other=st.integers(0, 1 << 40))
def test_a_count_row_reads_back_only_as_written(text: str, count: int, other: int) -> None:
    secret, digest = b"k" * 32, text_digest(text)
    row = count_row(secret, "c@1 t o", digest, count)
    assert decode_counts(secret, "c@1 t o", [(row[0], row[2], row[3])]) == {digest: count}
    if other != count:
        assert decode_counts(secret, "c@1 t o", [(row[0], other, row[3])]) == {}
    assert decode_counts(secret, "c@2 t o", [(row[0], row[2], row[3])]) == {}
    assert decode_counts(b"j" * 32, "c@1 t o", [(row[0], row[2], row[3])]) == {}


class Fixed:
    """A counter computed from the text alone (UTF-8 bytes // 3 + 1)."""

    @staticmethod
    def raw(text: str) -> int:
        return len(text.encode("utf-8", "surrogatepass")) // 3 + 1


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(st.text(min_size=1, max_size=80), min_size=1, max_size=12))
def test_counts_served_from_a_record_equal_counts_computed_fresh(tmp_path_factory: Any, texts: list[str]) -> None:
    from lychd_core.blocks import Block
    from lychd_core.tokens import BoundCounter

    path = tmp_path_factory.mktemp("records") / "p.sqlite3"
    blocks = [Block(layer=Layer.CODEX, key=f"codex:{n}", text=text) for n, text in enumerate(texts)]

    def fresh() -> BoundCounter:
        return BoundCounter("fixed@1", TokenCountKind.ESTIMATE, "bytes/3", Fixed.raw, identity="fixed@1 t o")

    cache = ProjectionCache(path, key=b"k" * 32)
    assert not attach_counts(cache, fresh(), blocks).from_record  # cold: counted, rows and a record stored
    with connected(path) as conn:
        conn.execute("DELETE FROM token_counts")  # only the record can serve now
    counter = fresh()
    done = attach_counts(ProjectionCache(path, key=b"k" * 32), counter, blocks)
    assert done.from_record and done.read == len(set(texts))
    assert all(counter.known(text) == Fixed.raw(text) for text in texts)
