"""Token counts stored with projections: a warm run reads them instead of calling the counter.

Every test runs real assemblies over a workspace with the embedded SQLite projection cache
(the PostgreSQL backend passes the same store contract, ``tests/test_store_contract.py``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, ClassVar

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


def test_a_tampered_count_is_refused_and_counted_again(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    _, cold, _ = run(root)
    with sqlite3.connect(cache_of(root)) as conn:
        assert conn.execute("UPDATE token_counts SET count = 1").rowcount == 2
    calls, warm, counter = run(root)
    assert codex_texts(warm) <= set(calls) and counter.stats().stored == 0  # both rows failed their MAC
    assert estimates(warm) == estimates(cold)
    calls, _, counter = run(root)  # the recount repaired the rows
    assert not codex_texts(warm) & set(calls) and counter.stats().stored == 2


def test_a_read_only_cache_serves_counts_and_stores_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = workspace(tmp_path)
    run(root)
    path = cache_of(root)
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM token_counts WHERE text_digest = (SELECT min(text_digest) FROM token_counts)")
    monkeypatch.setattr(cache_file, "writable", lambda _: False)  # as a user who may not write it (see read_only)
    _, _, counter = run(root)
    assert counter.stats().stored == 1  # the one row left is served; the other text is counted, not stored
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM token_counts").fetchone()[0] == 1


def test_a_cache_made_before_counts_were_kept_stays_warm_and_gains_the_table(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    run(root)
    with sqlite3.connect(cache_of(root)) as conn:
        conn.execute("DROP TABLE token_counts")
    calls, assembled, counter = run(root)  # entries still served; counts missed, counted and stored
    assert codex_texts(assembled) <= set(calls) and counter.stats().stored == 0
    _, _, counter = run(root)
    assert counter.stats().stored == 2


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
