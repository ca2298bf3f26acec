"""Every projection-profile call is time-limited, whatever the process count.

A profile that loops in Python, sleeps, or is stuck in native code (where no signal
handler can run) is stopped at ``[projection] time_limit_seconds``: the material is an
explained absence (a required one refuses), the other materials are projected, and the
next job gets a fresh worker.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from lychd_core.config import default_config, parse_config
from lychd_core.errors import RequiredMaterialUnavailable
from lychd_core.families import PluginFamily, Projected, SourceMaterial
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Projector
from lychd_core.registry import registry_from
from tests.support.hostile import distribution, run_subprocess, workspace, write

LIMIT = 0.5
HANG_SECONDS = 600
STOPPED = "did not finish within"


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


def stuck(kind: bytes) -> None:
    if kind == b"loop":  # pure Python: a signal handler could stop this one
        while True:
            pass
    if kind == b"native":  # one C call that never returns to the interpreter
        sum(itertools.repeat(1))
    if kind == b"sleep":
        time.sleep(3600)


@dataclass
class StuckProfile:
    """Projects ``ok`` at once; gets stuck the way the material's first word says."""

    name: str = "acme.stuck"
    revision: int = 1
    options_model: type[BaseModel] = NoOptions
    media_types: frozenset[str] = frozenset({"text/csv"})
    parser_version: str = "stuck 1"

    def project(self, source: SourceMaterial, options: BaseModel) -> Projected:
        stuck(source.data.split(b"\n")[0])
        return Projected(text=source.data.decode())


def projector(root: Path, limit: float = LIMIT) -> Projector:
    base = default_config().model_dump(mode="json")
    base["projection"]["rules"]["text/csv"] = {"profile": "acme.stuck", "revision": 1}
    base["projection"]["time_limit_seconds"] = limit
    registry = registry_from([(PluginFamily.PROJECTION_PROFILE, StuckProfile())])
    return Projector(parse_config(base), registry, Workspace(root))


def materials(root: Path, kinds: list[str]) -> list[MaterialRef]:
    refs = []
    for index, kind in enumerate(kinds):
        (root / f"{index}.csv").write_text(f"{kind}\n{index}\n")
        refs.append(MaterialRef.for_current(Workspace(root), f"{index}.csv", required=False))
    return refs


@pytest.mark.parametrize("processes", [1, 2])
def test_a_stuck_profile_is_stopped_and_the_others_project(processes: int, tmp_path: Path) -> None:
    refs = materials(tmp_path, ["ok", "loop", "native", "sleep", "ok"])
    started = time.monotonic()
    results = projector(tmp_path).project_many(refs, processes=processes)
    # A hang guard, not a speed bound: unstopped, the sleeper alone would take an hour.
    assert time.monotonic() - started < HANG_SECONDS
    assert [r.ok for r in results] == [True, False, False, False, True]
    for result in results[1:4]:
        assert result.unavailable is not None and STOPPED in result.unavailable
        assert "acme.stuck@1" in result.unavailable and "time_limit_seconds" in result.unavailable
    assert results[4].block is not None and results[4].block.text == "ok\n4\n"


@dataclass
class PidProfile:
    """Reports the process it ran in; ``time_bounded`` as given."""

    time_bounded: object
    name: str = "acme.stuck"
    revision: int = 1
    options_model: type[BaseModel] = NoOptions
    media_types: frozenset[str] = frozenset({"text/csv"})
    parser_version: str = "pid 1"

    def project(self, source: SourceMaterial, options: BaseModel) -> Projected:
        return Projected(text=str(os.getpid()))


@pytest.mark.parametrize(("declared", "processes", "here"), [(True, 1, True), (True, 2, False), ("yes", 1, False)])
def test_only_a_self_bounded_profile_runs_in_the_caller(
    declared: object, processes: int, here: bool, tmp_path: Path
) -> None:
    base = default_config().model_dump(mode="json")
    base["projection"]["rules"]["text/csv"] = {"profile": "acme.stuck", "revision": 1}
    registry = registry_from([(PluginFamily.PROJECTION_PROFILE, PidProfile(declared))])
    projector = Projector(parse_config(base), registry, Workspace(tmp_path))
    [result] = projector.project_many(materials(tmp_path, ["ok"]), processes=processes)
    assert result.block is not None and (result.block.text == str(os.getpid())) is here


def test_a_stuck_required_material_refuses(tmp_path: Path) -> None:
    (tmp_path / "n.csv").write_text("native\n")
    ref = MaterialRef.for_current(Workspace(tmp_path), "n.csv")
    with pytest.raises(RequiredMaterialUnavailable) as caught:
        projector(tmp_path).project(ref)
    assert STOPPED in caught.value.reason


def test_the_limit_is_validated() -> None:
    base = default_config().model_dump(mode="json")
    assert default_config().projection.time_limit_seconds == 120
    base["projection"]["time_limit_seconds"] = 2.5
    assert parse_config(base).projection.time_limit_seconds == 2.5
    for bad in (0, -1, True, "5", 10**9):
        base["projection"]["time_limit_seconds"] = bad
        with pytest.raises(Exception, match="time_limit_seconds"):
            parse_config(base)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kinds=st.lists(st.sampled_from(["ok", "ok", "ok", "loop", "native"]), min_size=1, max_size=5).filter(
        lambda kinds: sum(kind != "ok" for kind in kinds) <= 2
    ),
    processes=st.integers(1, 2),
)
def test_results_keep_their_order_and_only_stuck_ones_are_stopped(
    kinds: list[str], processes: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("limits")
    results = projector(root, limit=0.3).project_many(materials(root, kinds), processes=processes)
    assert [r.ref.source for r in results] == [f"{i}.csv" for i in range(len(kinds))]
    for kind, result in zip(kinds, results, strict=True):
        if kind == "ok":
            assert result.block is not None and result.block.text.startswith("ok\n")
        else:
            assert result.unavailable is not None and STOPPED in result.unavailable


# --- the command, with a real installed distribution ------------------------------------

STUCK_PLUGIN = """
import itertools, time
from pydantic import BaseModel, ConfigDict
from lychd_core.families import Projected
from lychd_core.hookspecs import hookimpl


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Stuck:
    name = "acme.stuck"
    revision = 1
    options_model = Options
    media_types = frozenset({"text/x-acme"})
    file_media_types = {".acme": "text/x-acme"}
    parser_version = "stuck 1"

    def project(self, source, options):
        if source.data.startswith(b"loop"):
            while True:
                pass
        if source.data.startswith(b"native"):
            sum(itertools.repeat(1))
        return Projected(text=source.data.decode())


@hookimpl
def lychd_register_projection_profiles(register):
    register(Stuck())
"""

STUCK_CONFIG = """schema_version = 1
[role_policy]
name = "roles.standard"
revision = 1
[projection]
time_limit_seconds = 1
[projection.rules."text/x-acme"]
profile = "acme.stuck"
revision = 1
"""


@pytest.mark.parametrize("processes", ["1", "2"])
def test_the_command_stops_a_stuck_third_party_profile(processes: str, tmp_path: Path) -> None:
    distribution(tmp_path / "site", "acme-stuck", "acme-stuck", "acme_stuck", STUCK_PLUGIN)
    ws = workspace(tmp_path / "ws")
    for name in ("ok", "loop", "native"):
        write(ws / f"{name}.acme", f"{name}\n")
    config = write(ws / "lychd.toml", STUCK_CONFIG)
    env = {"PYTHONPATH": str(tmp_path / "site")}
    w = ["--workspace", str(ws), "--config", config]
    files = ["ok.acme", "loop.acme", "native.acme"]
    outcome = run_subprocess(["project", "--json", *w, "--processes", processes, *files], env=env)
    assert outcome.code == 0, outcome.err
    items = {item["path"]: item for item in json.loads(outcome.out)["items"]}
    assert items["ok.acme"]["status"] == "projected"
    for name in ("loop.acme", "native.acme"):
        assert items[name]["status"] == "unavailable" and STOPPED in items[name]["reason"]
        assert "acme-stuck" in items[name]["reason"]
    if processes == "1":  # assemble projects in one worker; a --material is required
        outcome = run_subprocess(["assemble", *w, "--query", "q", "--material", "native.acme"], env=env)
        assert outcome.code == 1 and "RequiredMaterialUnavailable" in outcome.err and STOPPED in outcome.err
