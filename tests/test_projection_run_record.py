"""The run record: an unchanged run is served whole from one MAC'd record, anything else per file."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lychd_core.blocks import Block
from lychd_core.config import default_config, parse_config
from lychd_core.projection import run_record
from lychd_core.projection.contributions import Contribution
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Projector
from lychd_core.projection.record_mac import sign_record
from lychd_core.registry import get_registry
from lychd_core.state.keys import encoded
from lychd_core.stores.sqlite import cache as cache_module
from lychd_core.stores.sqlite import cache_file as cache_file_module
from lychd_core.stores.sqlite.cache import ProjectionCache
from tests.support.sqlite_files import connected

MARGIN = 50_000_000  # 50 ms racy margin; the tests sleep past it so their files are settled
FILES = {
    "src/a.py": "def a():\n    return 1\n",
    "src/b.py": "class B:\n    x = 1\n",
    "notes.md": "# Notes\n\nsome text\n",
    "docs/readme.txt": "plain words\n",
}


def projector(root: Path, state: Path, key: bytes | None = None, labels: list[Any] | None = None) -> Projector:
    data = default_config().model_dump(mode="json")
    data["stores"]["state_dir"] = str(state)
    if labels is not None:
        data["labels"] = labels
    made = Projector(parse_config(data), get_registry(), Workspace(root), ProjectionCache(state / "c.db", key=key))
    made.racy_margin_ns = MARGIN
    return made


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    time.sleep(0.06)


def refs(root: Path, names: list[str]) -> list[MaterialRef]:
    workspace = Workspace(root)
    return [MaterialRef.for_current(workspace, name, required=False) for name in names]


def run(root: Path, state: Path, references: list[MaterialRef], **kw: Any) -> tuple[bool, list[Contribution]]:
    made = projector(root, state, **kw)
    try:
        out = made.project_many(references)
        return made.served_from_run_record, out
    finally:
        assert made.cache is not None
        made.cache.close()  # now, not whenever a collection finds it: the files on disk after a run are then fixed


def sign(secret: bytes, key: str, record: bytes) -> str:
    """A valid MAC for ``record`` under ``key``: what the cache itself would store."""
    return sign_record(secret, run_record.DOMAIN, encoded(key), record)


def records(state: Path) -> list[tuple[str, bytes, str]]:
    with connected(state / "c.db") as conn:
        return conn.execute("SELECT run_key, record, entry_digest FROM run_records").fetchall()


def rewrite(state: Path, record: object, tag: object, key: str | None = None) -> None:
    with connected(state / "c.db") as conn:
        if key is None:
            conn.execute("UPDATE run_records SET record = ?, entry_digest = ?", (record, tag))
        else:
            conn.execute("UPDATE run_records SET record = ?, entry_digest = ? WHERE run_key = ?", (record, tag, key))


def same(a: list[Contribution], b: list[Contribution]) -> None:
    """Equal outcomes, down to the blocks' fields, private hash and fields set."""
    assert [c.digest for c in a] == [c.digest for c in b]
    assert [(c.unavailable, c.facts, c.media, c.media_type) for c in a] == [
        (c.unavailable, c.facts, c.media, c.media_type) for c in b
    ]
    for x, y in zip(a, b, strict=True):
        if x.block is None or y.block is None:
            assert x.block is y.block
            continue
        assert type(x.block) is Block and x.block == y.block and x.block.label == y.block.label
        assert x.block.content_hash == y.block.content_hash and x.block.to_json() == y.block.to_json()
        assert x.block.model_fields_set == y.block.model_fields_set
        assert x.block.lineage.model_fields_set == y.block.lineage.model_fields_set


@pytest.fixture
def warmed(tmp_path: Path) -> tuple[Path, Path, list[MaterialRef], list[Contribution]]:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, FILES)
    references = refs(root, sorted(FILES))
    served, cold = run(root, state, references)
    assert not served and len(records(state)) == 1
    return root, state, references, cold


def test_an_unchanged_run_is_served_from_its_record_exactly_like_the_per_file_path(
    warmed: tuple[Path, Path, list[MaterialRef], list[Contribution]],
) -> None:
    root, state, references, cold = warmed
    served, warm = run(root, state, references)
    assert served and all(c.cached for c in warm)
    with connected(state / "c.db") as conn:
        conn.execute("DELETE FROM run_records")
    served_again, per_file = run(root, state, references)
    assert not served_again
    assert warm == per_file  # the dataclass's fields: the same refs, blocks, facts bytes and decisions
    same(warm, per_file)
    same(warm, cold)
    ticks: list[int] = []
    projector(root, state).project_many(references, progress=ticks.append)
    assert ticks == [1] * len(references)


def test_labels_from_rules_and_explicit_labels_come_back_the_same(tmp_path: Path) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, FILES)
    rules = [{"path": "src/**", "privacy_class": "internal", "weight": 10, "categories": ["code"]}]
    workspace = Workspace(root)
    explicit = MaterialRef.for_current(workspace, "src/a.py", required=False).label.model_copy()
    references = [*refs(root, sorted(FILES)), MaterialRef.for_current(workspace, "notes.md", label=explicit)]
    _, cold = run(root, state, references, labels=rules)
    served, warm = run(root, state, references, labels=rules)
    assert served
    same(warm, cold)
    assert warm[2].block is not None and "code" in warm[2].block.label.categories
    served, _ = run(root, state, references)  # other label rules: another run key
    assert not served


EDITS = st.lists(
    st.tuples(st.sampled_from([*sorted(FILES), "src/new.py"]), st.sampled_from(["edit", "add", "delete", "touch"])),
    max_size=3,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=EDITS, same_refs=st.booleans())
def test_a_warm_run_equals_a_cold_run_after_any_edits(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[str, str]], same_refs: bool
) -> None:
    base = tmp_path_factory.mktemp("runs")
    root, state = base / "w", base / "state"
    tree(root, FILES)
    references = refs(root, sorted(FILES))
    run(root, state, references)
    changed = False
    for name, edit in edits:
        path = root / name
        if edit == "delete" and path.exists():
            path.unlink()
        elif edit == "touch" and path.exists():
            os.utime(path, ns=(time.time_ns(), time.time_ns()))
        elif edit == "add" and not path.exists():
            path.write_text("added = 1\n", encoding="utf-8")
        elif edit == "edit" and path.exists():
            path.write_text(path.read_text(encoding="utf-8").replace("1", "2").replace("e", "E"), encoding="utf-8")
        else:
            continue
        changed = changed or name in FILES  # a file outside the references changes no outcome
    time.sleep(0.06)
    names = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    later = references if same_refs else refs(root, names)
    served, warm = run(root, state, later)
    _, fresh = run(root, base / "fresh", later)
    same(warm, fresh)
    assert served == (not changed and later == references)


def test_a_tampered_record_is_a_miss_and_is_rewritten(
    warmed: tuple[Path, Path, list[MaterialRef], list[Contribution]],
) -> None:
    root, state, references, cold = warmed
    (_, record, tag) = records(state)[0]
    secret = ProjectionCache(state / "c.db").secret
    flipped = bytearray(record)
    flipped[len(flipped) // 2] ^= 1
    key = records(state)[0][0]
    well_signed_garbage = b"lychd-run/1\n" + b"\xff" * 40
    bad = [
        (bytes(flipped), tag),
        (record[:-7], tag),
        (record[: len(record) // 3], tag),
        (b"", tag),
        (record, tag.replace("a", "b").replace("1", "2")),
        (record, b"a blob, not text"),
        ("not bytes", tag),
        (well_signed_garbage, sign(secret, key, well_signed_garbage)),
        (record + b"x", sign(secret, key, record + b"x")),  # signed, too long
        (record[:-1], sign(secret, key, record[:-1])),  # signed, too short
    ]
    for value, mac in bad:
        rewrite(state, value, mac)
        served, warm = run(root, state, references)
        assert not served
        same(warm, cold)
        served, again = run(root, state, references)  # the per-file run wrote a good record again
        assert served
        same(again, cold)


def test_a_record_of_another_schema_is_a_miss(warmed: tuple[Path, Path, list[MaterialRef], list[Contribution]]) -> None:
    root, state, references, cold = warmed
    (key, record, _) = records(state)[0]
    secret = ProjectionCache(state / "c.db").secret
    other = record.replace(b"[1,", b"[2,", 1)
    assert other != record
    rewrite(state, other, sign(secret, key, other))
    served, warm = run(root, state, references)
    assert not served
    same(warm, cold)


def test_another_key_or_a_record_swapped_from_another_run_is_a_miss(
    warmed: tuple[Path, Path, list[MaterialRef], list[Contribution]],
) -> None:
    root, state, references, cold = warmed
    served, warm = run(root, state, references, key=b"k" * 32)  # every MAC fails: all re-projected
    assert not served and [c.cached for c in warm] == [False] * len(warm)
    same(warm, cold)
    state2 = root.parent / "state2"
    run(root, state2, references)
    fewer = references[:2]
    run(root, state2, fewer)
    assert run(root, state2, fewer)[0]
    rows = {row[0]: row for row in records(state2)}
    assert len(rows) == 2
    whole = next(row for row in rows.values() if len(row[1]) > max(len(r[1]) for r in rows.values()) - 1)
    part = next(row for row in rows.values() if row is not whole)
    rewrite(state2, whole[1], whole[2], key=part[0])  # the bigger run's record under the smaller run's key
    served, warm = run(root, state2, fewer)
    assert not served
    same(warm, cold[:2])


def test_an_edit_with_size_and_mtime_restored_is_seen(
    warmed: tuple[Path, Path, list[MaterialRef], list[Contribution]],
) -> None:
    root, state, references, _ = warmed
    path = root / "src/a.py"
    before = path.stat()
    path.write_text(FILES["src/a.py"].replace("1", "7"), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    time.sleep(0.06)
    served, warm = run(root, state, references)
    assert not served
    stale = next(c for c in warm if c.ref.path == "src/a.py")
    assert stale.block is None and stale.unavailable is not None and "DigestMismatch" in stale.unavailable
    current = refs(root, ["src/a.py"])
    served, fresh = run(root, state, current)
    assert not served and fresh[0].block is not None and current[0].digest != references[1].digest
    assert fresh[0].block.lineage.source_digests == (current[0].digest,)


def test_runs_that_cannot_be_trusted_whole_write_no_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, {**FILES, "blob.bin": "\x00\x01binary"})
    with_binary = refs(root, [*sorted(FILES), "blob.bin"])
    run(root, state, with_binary)  # one material unavailable: no record
    assert records(state) == []
    references = refs(root, sorted(FILES))
    monkeypatch.setattr(run_record, "MAX_RECORD_BYTES", 100)
    run(root, state, references)
    assert records(state) == []
    monkeypatch.setattr(run_record, "MAX_RECORD_BYTES", 1 << 20)
    monkeypatch.setattr(run_record, "MAX_REFS", 2)
    run(root, state, references)
    assert records(state) == []
    monkeypatch.setattr(run_record, "MAX_REFS", 50_000)
    (root / "racy.md").write_text("# new\n", encoding="utf-8")  # written just now: not yet settled
    run(root, state, refs(root, ["racy.md"]))
    assert records(state) == []


def test_records_are_replaced_per_key_and_pruned(tmp_path: Path) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, FILES)
    references = refs(root, sorted(FILES))
    run(root, state, references)
    run(root, state, list(reversed(references)))  # order is part of the key
    assert len(records(state)) == 2
    for _ in range(3):
        run(root, state, references)
    assert len(records(state)) == 2
    for count in range(1, 5):
        for start in range(3):
            run(root, state, references[start : start + count])
    kept = records(state)
    assert len(kept) == cache_module.KEEP_RECORDS
    served, _ = run(root, state, references[2:4])  # the newest is kept
    assert served


def test_a_read_only_cache_serves_its_record_and_writes_nothing(
    warmed: tuple[Path, Path, list[MaterialRef], list[Contribution]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, state, references, cold = warmed
    before = {path.name: path.read_bytes() for path in state.iterdir()}
    monkeypatch.setattr(cache_file_module, "writable", lambda _path: False)
    served, warm = run(root, state, references)
    assert served
    same(warm, cold)
    served, _ = run(root, state, references[:1])  # a new run: nothing is stored
    assert not served
    assert {path.name: path.read_bytes() for path in state.iterdir()} == before


def test_a_cache_that_cannot_be_created_keeps_no_record_and_no_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, FILES)
    monkeypatch.setattr(cache_file_module, "creatable", lambda _path: False)
    references = refs(root, sorted(FILES))
    assert not run(root, state, references)[0] and not run(root, state, references)[0]
    assert not state.exists()


def test_the_postgresql_cache_skips_run_records() -> None:
    from lychd_core.stores.postgres.cache import PostgresProjectionCache

    cache = PostgresProjectionCache("postgresql://nowhere.invalid/x", key_path="/nonexistent/cache.key")
    assert not isinstance(cache, run_record.RunRecordStore)
    assert isinstance(ProjectionCache("/nonexistent/c.db", key=b"k" * 32), run_record.RunRecordStore)


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=300), cuts=st.lists(st.integers(0, 80), max_size=12), chunk=st.integers(1, 64))
def test_record_pieces_are_read_exactly_whatever_the_chunk_size(data: bytes, cuts: list[int], chunk: int) -> None:
    import io

    reader = io.BytesIO(data)
    pieces = run_record._Chunks(reader, len(data))  # type: ignore[arg-type]
    pieces.SIZE = chunk
    taken, offset = [], 0
    for size in cuts:
        if size > len(data) - offset:
            with pytest.raises(ValueError):
                pieces.take(size)
            return
        taken.append(bytes(pieces.take(size)))
        offset += size
    assert b"".join(taken) == data[:offset] and pieces.remaining == len(data) - offset
    assert [len(piece) for piece in taken] == cuts
