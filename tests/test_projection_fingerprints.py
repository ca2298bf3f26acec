"""Stat fingerprints and the batched run: unchanged files are not re-read, anything else is."""

from __future__ import annotations

import os
import time
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lychd_core.config import default_config, parse_config
from lychd_core.config.media_table import file_suffix, file_suffixes
from lychd_core.errors import DigestMismatchError, LychdError, MaterialError, MaterialScopeError
from lychd_core.projection.current import current_refs
from lychd_core.projection.fingerprints import RACY_MARGIN_NS, FileRecord, settled
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.media import detect_media_type
from lychd_core.projection.projector import Projector
from lychd_core.registry import get_registry
from lychd_core.stores.sqlite.cache import ProjectionCache
from tests.support.sqlite_files import connected


def projector(root: Path, state: Path, margin: int = 0) -> Projector:
    data = default_config().model_dump(mode="json")
    data["stores"]["state_dir"] = str(state)
    config = parse_config(data)
    workspace = Workspace(root)
    made = Projector(config, get_registry(), workspace, ProjectionCache(state / "cache.sqlite3"))
    made.racy_margin_ns = margin
    return made


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def refs(root: Path, names: list[str], **fields: Any) -> list[MaterialRef]:
    workspace = Workspace(root)
    return [MaterialRef.for_current(workspace, name, **fields) for name in names]


def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths read (and hashed) through the workspace boundary from now on."""
    seen: list[str] = []
    original = Workspace.read_stamped

    def spy(self: Workspace, ref: MaterialRef, max_bytes: int) -> Any:
        seen.append(ref.source)
        return original(self, ref, max_bytes)

    monkeypatch.setattr(Workspace, "read_stamped", spy)
    return seen


FILES = {"src/a.py": "def a():\n    return 1\n", "src/b.py": "class B:\n    x = 1\n", "notes.md": "# Notes\n"}


def test_an_unchanged_tree_is_served_without_reading_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, FILES)
    references = refs(root, sorted(FILES))
    cold = projector(root, state).project_many(references)
    seen = reads(monkeypatch)
    warm = projector(root, state).project_many(references)
    assert seen == [] and all(c.cached for c in warm)
    assert [c.digest for c in warm] == [c.digest for c in cold]
    assert [c.media for c in warm] == [c.media for c in cold]


def test_a_changed_file_is_read_again_and_its_stale_reference_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, FILES)
    references = refs(root, sorted(FILES), required=False)
    projector(root, state).project_many(references)
    (root / "src/a.py").write_text("def a():\n    return 2\n", encoding="utf-8")  # same size, new bytes
    seen = reads(monkeypatch)
    again = projector(root, state).project_many(references)
    assert seen == ["src/a.py"]
    stale = next(c for c in again if c.ref.source == "src/a.py")
    assert stale.block is None and stale.unavailable is not None and "DigestMismatchError" in stale.unavailable
    with pytest.raises(DigestMismatchError):
        projector(root, state).project(refs(root, ["notes.md"])[0].model_copy(update={"path": "src/a.py"}))


def test_a_racy_file_is_not_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, FILES)
    references = refs(root, sorted(FILES))
    projector(root, state, margin=RACY_MARGIN_NS).project_many(references)  # just written: all racy
    seen = reads(monkeypatch)
    projector(root, state, margin=RACY_MARGIN_NS).project_many(references)
    assert sorted(seen) == sorted(FILES)
    assert settled((0, 0, 0, 1, 1), 10 + RACY_MARGIN_NS) and not settled((0, 0, 0, 1, 10), 10 + RACY_MARGIN_NS)


def test_an_edited_or_forged_record_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, FILES)
    references = refs(root, ["src/a.py"])
    projector(root, state).project_many(references)
    with connected(state / "cache.sqlite3") as conn:
        (text,) = conn.execute("SELECT record FROM file_records").fetchone()
        conn.execute("UPDATE file_records SET record = ?", (text.replace("text/x-python", "text/plain"),))
        conn.execute("DELETE FROM run_records")  # the per-file path, not the run's record, is under test
    seen = reads(monkeypatch)
    warm = projector(root, state).project_many(references)
    assert seen == ["src/a.py"] and warm[0].media_type == "text/x-python"


def test_records_follow_the_pin_and_stay_inside_the_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, FILES)
    (tmp_path / "outside.py").write_text("x = 1\n", encoding="utf-8")
    plain = refs(root, ["src/a.py"])
    projector(root, state).project_many(plain)
    seen = reads(monkeypatch)
    pinned = [plain[0].model_copy(update={"media_type": "text/plain"})]
    assert projector(root, state).project_many(pinned)[0].media_type == "text/plain"
    assert seen == ["src/a.py"]  # another pin: the record does not decide
    os.symlink(tmp_path, root / "up")
    escape = MaterialRef(path="up/outside.py", digest=refs(tmp_path, ["outside.py"])[0].digest)
    with pytest.raises(MaterialScopeError):
        projector(root, state).project_many([escape])


def test_a_required_failure_is_raised_in_order_after_earlier_outcomes_are_cached(tmp_path: Path) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, {**FILES, "blob.bin": "\x00\x01binary"})
    references = [*refs(root, ["src/a.py"]), *refs(root, ["blob.bin"]), *refs(root, ["src/b.py"])]
    with pytest.raises(LychdError):
        projector(root, state).project_many(references)
    cache = ProjectionCache(state / "cache.sqlite3")
    assert cache.count() == 1  # a.py was projected and kept; b.py came after the refusal


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    stamp=st.tuples(*(st.integers(0, 2**63 - 1) for _ in range(5))),
    path=st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30),
)
def test_file_records_round_trip_and_bind_scope_and_path(stamp: tuple[int, int, int, int, int], path: str) -> None:
    decision = detect_media_type("a.py", b"x = 1\n")
    record = FileRecord(path, stamp, "sha256:" + "0" * 64, "", "d", decision)
    text, tag = record.encode(b"k" * 32, "scope")
    assert FileRecord.decode(b"k" * 32, "scope", path, text, tag) == record
    assert FileRecord.decode(b"k" * 32, "other", path, text, tag) is None
    assert FileRecord.decode(b"k" * 32, "scope", path + "x", text, tag) is None
    assert FileRecord.decode(b"j" * 32, "scope", path, text, tag) is None


def test_outputs_are_the_same_with_and_without_records(tmp_path: Path) -> None:
    root = tmp_path / "w"
    tree(root, FILES)
    references = refs(root, sorted(FILES))
    time.sleep(0.01)
    with_records = projector(root, tmp_path / "s1").project_many(references)
    projector(root, tmp_path / "s1").project_many(references)
    served = projector(root, tmp_path / "s1").project_many(references)
    fresh = projector(root, tmp_path / "s2", margin=10**18).project_many(references)
    assert [c.digest for c in with_records] == [c.digest for c in served] == [c.digest for c in fresh]


@given(st.text(alphabet=st.sampled_from("ab.X_-"), max_size=12))
def test_file_suffixes_match_pathlib(name: str) -> None:
    if not name or name in (".", ".."):
        return
    assert file_suffix(name) == PurePosixPath(name).suffix
    assert file_suffixes(name) == PurePosixPath(name).suffixes


def test_current_refs_take_recorded_digests_and_read_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, state = tmp_path / "w", tmp_path / "state"
    tree(root, FILES)
    names = sorted(FILES)
    made = projector(root, state)
    made.project_many(refs(root, names))
    (root / "notes.md").write_text("# Changed notes\n", encoding="utf-8")
    read: list[str] = []
    original = Workspace.read_bytes

    def spy(self: Workspace, path: str, max_bytes: int) -> bytes:
        read.append(path)
        return original(self, path, max_bytes)

    monkeypatch.setattr(Workspace, "read_bytes", spy)
    found = current_refs(Workspace(root), made.cache, [*names, "missing.py", "../up.py"], required=False)
    assert read == ["notes.md", "missing.py", "../up.py"]  # not the two unchanged, recorded files
    monkeypatch.setattr(Workspace, "read_bytes", original)
    assert [r.digest for r in found[:3] if isinstance(r, MaterialRef)] == [r.digest for r in refs(root, names)]
    assert isinstance(found[3], MaterialError) and isinstance(found[4], MaterialScopeError)
    assert current_refs(Workspace(root), None, names) == refs(root, names)


EDITS = st.lists(
    st.tuples(
        st.sampled_from(sorted(FILES)),
        st.sampled_from(["same-size", "longer", "delete", "touch", "keep"]),
    ),
    max_size=4,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=EDITS)
def test_runs_with_records_equal_runs_without_after_any_edits(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[str, str]]
) -> None:
    base = tmp_path_factory.mktemp("edits")
    root, state = base / "w", base / "state"
    tree(root, FILES)
    references = refs(root, sorted(FILES), required=False)
    time.sleep(0.06)
    projector(root, state, margin=50_000_000).project_many(references)  # records every settled file
    for name, edit in edits:
        path = root / name
        if edit == "delete":
            path.unlink(missing_ok=True)
        elif edit == "touch" and path.exists():
            os.utime(path)
        elif edit != "keep":
            old = FILES[name]
            path.write_text(old.replace("1", "2") if edit == "same-size" else old + "# more\n", encoding="utf-8")
    time.sleep(0.06)
    served = projector(root, state, margin=50_000_000).project_many(references)
    fresh = projector(root, base / "fresh", margin=10**18).project_many(references)
    assert [(c.digest, c.unavailable) for c in served] == [(c.digest, c.unavailable) for c in fresh]
