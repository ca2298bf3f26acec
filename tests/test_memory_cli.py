"""``lychd memory`` on the embedded store of a workspace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict

from lychd_core.cli import main, memory_cmd
from lychd_core.config import default_config
from lychd_core.families import PluginFamily
from lychd_core.registry import Registry, registry_from
from lychd_core.roles import RoleProfile
from lychd_core.stores.sqlite import SqliteMemoryStore
from lychd_core.vocabulary import ContextClass, Operation, Provenance

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "memory.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    assert run(capsys, "memory", "add", str(EXAMPLE), "--workspace", str(root))[0] == 0
    return root


def test_add_is_all_or_nothing_and_idempotent(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    again = run_json(capsys, "memory", "add", str(EXAMPLE), "--workspace", str(workspace))
    assert again == {"file": str(EXAMPLE), "records": 3, "added": 0, "unchanged": 3}
    path = default_config().stores.path_of(default_config().stores.memory, workspace)
    assert path == (workspace / ".lychd" / "memory.sqlite3").resolve() and path.exists()
    bad = workspace / "bad.json"
    records = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    fresh = dict(records[0], id="fresh-one")
    broken = dict(records[1], id="broken", confidence=20_000)
    bad.write_text(json.dumps([fresh, broken]), encoding="utf-8")
    code, _, err = run(capsys, "memory", "add", str(bad), "--workspace", str(workspace))
    assert code == 1 and "ScoreOutOfRangeError" in err
    with SqliteMemoryStore.open(path) as store:
        assert "fresh-one" not in {r.memory_id for r in store.records()}


def test_query_selects_explains_and_emits_evidence(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("memory", "query", "--workspace", str(workspace), "--project", "lychd", "--repository", "lychd-core")
    plan = run_json(capsys, *args, "--feature", "python", "--explain")
    assert [e["id"] for e in plan["selected"]] == ["pref-tabs-vs-spaces", "lesson-sqlite-wal"]
    assert plan["query"]["now"] == 140  # defaults to the store's latest observation
    assert {e["id"]: e["reason"] for e in plan["explanations"]} == {
        "lesson-sqlite-wal": None,
        "pref-tabs-vs-spaces": None,
        "warn-flaky-ci": "scope-mismatch",
    }
    evidence = plan["evidence"][0]
    assert (evidence["provenance"], evidence["authority"], evidence["trust"]) == (
        "memory",
        "non_authoritative",
        "untrusted",
    )
    assert evidence["source_provenance"] == "user" and evidence["text"].splitlines()[1].startswith("> ")
    limited = run_json(capsys, *args, "--limit", "1", "--now", "1000")
    assert [e["id"] for e in limited["selected"]] == ["pref-tabs-vs-spaces"]
    assert limited["counts"] == {"result-limit": 1, "selected": 1, "scope-mismatch": 1}
    code, out, _ = run(capsys, *args, "--explain")
    assert code == 0 and "scope-mismatch" in out and "plan digest sha256:" in out


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Roles:
    name: ClassVar[str] = "roles.standard"
    revision: ClassVar[int] = 1
    options_model: ClassVar[type[BaseModel]] = _Options
    roles: ClassVar[tuple[str, ...]] = ("writer",)

    def profile(self, role: str, options: BaseModel) -> RoleProfile:
        return RoleProfile(
            role=role,
            visible_classes=frozenset({ContextClass.MEMORY_EVIDENCE}),
            visible_provenances=frozenset({Provenance.MEMORY, Provenance.REVIEW}),
            capability_view=(Operation.READ_CONTEXT,),
        )


def test_role_visibility_comes_from_the_configured_role_policy(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = registry_from([(PluginFamily.ROLE_POLICY, _Roles())])
    monkeypatch.setattr(memory_cmd, "get_registry", lambda: registry)
    plan = run_json(
        capsys, "memory", "query", "--workspace", str(workspace), "--project", "lychd", "--role", "writer", "--explain"
    )
    assert {e["id"]: e["reason"] for e in plan["explanations"]} == {
        "lesson-sqlite-wal": None,  # review provenance is visible
        "pref-tabs-vs-spaces": "scope-mismatch",
        "warn-flaky-ci": "scope-mismatch",
    }
    monkeypatch.setattr(memory_cmd, "get_registry", lambda: Registry())
    code, _, err = run(capsys, "memory", "query", "--workspace", str(workspace), "--role", "writer")
    assert code == 1 and "UnknownPluginError" in err


def test_forget_rebuild_and_stats(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = ("--workspace", str(workspace))
    before = run_json(capsys, "memory", "stats", *where)
    assert (before["active"], before["tombstones"], before["schema_version"]) == (3, 0, 2)
    stone = run_json(
        capsys, "memory", "forget", "warn-flaky-ci", "--reason", "obsolete", "--observation", "200", *where
    )
    assert stone["id"] == "warn-flaky-ci" and stone["revision"] == 1 and set(stone) >= {"prior_digest"}
    code, out, _ = run(capsys, "memory", "rebuild", *where)
    assert code == 0
    digest = out.strip()
    path = default_config().stores.path_of(default_config().stores.memory, workspace)
    with SqliteMemoryStore.open(path) as store:
        assert digest == store.rebuild_index().digest
    after = run_json(capsys, "memory", "stats", *where)
    assert (after["active"], after["tombstones"], after["index_digest"]) == (2, 1, digest)
    code, out, _ = run(capsys, "memory", "stats", *where)
    assert code == 0 and "index_digest" in out
    code, _, err = run(capsys, "memory", "forget", "warn-flaky-ci", "--reason", "x", "--observation", "300", *where)
    assert code == 1 and "ForgottenMemoryError" in err


def test_read_commands_do_not_create_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for action in ("stats", "rebuild", "query"):
        code, _, err = run(capsys, "memory", action, "--workspace", str(tmp_path))
        assert code == 1 and "StoreMissingError" in err
    assert not (tmp_path / ".lychd").exists()


def test_config_selects_the_store_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "lychd.toml"
    text = (
        'schema_version = 1\n[role_policy]\nname = "roles.standard"\nrevision = 1\n'
        '[stores]\nstate_dir = "state"\n[stores.memory]\npath = "mem.db"\n'
    )
    config.write_text(text, encoding="utf-8")
    code, _, err = run(capsys, "memory", "add", str(EXAMPLE), "--config", str(config), "--workspace", str(tmp_path))
    assert code == 0, err
    assert (tmp_path / "state" / "mem.db").exists()
    code, _, err = run(capsys, "memory", "add", str(tmp_path / "missing.json"), "--workspace", str(tmp_path))
    assert code == 1 and "MemoryRecordError" in err
