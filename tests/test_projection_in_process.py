"""A time-bounded profile with one process is called in the projector itself: finished at its turn, as a worker's
job is (a required failure raised in order, after what came before it is cached; nothing after it projected)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from lychd_structure_python import PROFILE as STRUCTURE
from lychd_verbatim import PROFILE as VERBATIM
from pydantic import BaseModel, ConfigDict

from lychd_core.config import default_config, parse_config
from lychd_core.families import PluginFamily, Projected, SourceMaterial, Unavailable
from lychd_core.projection import pool
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Projector, RequiredMaterialUnavailable
from lychd_core.registry import registry_from
from lychd_core.stores.sqlite.cache import ProjectionCache


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass
class CountingProfile:
    """Upper-cases a CSV file; ``bad.csv`` cannot be projected. Declares its own time bound."""

    calls: list[str] = field(default_factory=list)
    name: str = "counting.profile"
    revision: int = 1
    options_model: type[BaseModel] = NoOptions
    media_types: frozenset[str] = frozenset({"text/csv"})
    parser_version: str = "counting 1"
    time_bounded: bool = True

    def project(self, source: SourceMaterial, options: BaseModel) -> Projected | Unavailable:
        self.calls.append(source.path)
        if source.path.endswith("bad.csv"):
            return Unavailable("this one cannot be projected")
        text = source.data.decode().upper()
        return Projected(text=text, facts={"n": len(text)}, line_map=tuple(range(1, len(text.splitlines()) + 1)))


def setup(tmp_path: Path) -> tuple[Path, CountingProfile, object]:
    root = tmp_path / "w"
    root.mkdir()
    for name in ("a.csv", "bad.csv", "c.csv"):
        (root / name).write_text(f"{name},1\n")
    profile = CountingProfile()
    objects = [(PluginFamily.PROJECTION_PROFILE, obj) for obj in (STRUCTURE, VERBATIM, profile)]
    data = default_config().model_dump(mode="json")
    data["projection"]["rules"]["text/csv"] = {"profile": "counting.profile", "revision": 1}
    return root, profile, (registry_from(objects), parse_config(data))


def test_a_required_failure_is_raised_at_its_turn_after_what_came_before_is_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, profile, (registry, config) = setup(tmp_path)
    started: list[object] = []
    monkeypatch.setattr(pool.JobRunner, "_start", lambda self: started.append(self))  # no worker may start
    workspace = Workspace(root)
    refs = [MaterialRef.for_current(workspace, name) for name in ("a.csv", "bad.csv", "c.csv")]
    cache = ProjectionCache(tmp_path / "c.sqlite3")
    ticks: list[int] = []
    with pytest.raises(RequiredMaterialUnavailable) as caught:
        Projector(config, registry, workspace, cache).project_many(refs, progress=ticks.append)  # type: ignore[arg-type]
    assert caught.value.source == "bad.csv" and "cannot be projected" in caught.value.reason
    assert profile.calls == ["a.csv", "bad.csv"] and ticks == [1, 1] and not started
    again = Projector(config, registry, workspace, cache).project_many(refs[:1])  # type: ignore[arg-type]
    assert again[0].cached and again[0].block is not None and again[0].block.text == "A.CSV,1\n"
    assert profile.calls == ["a.csv", "bad.csv"]  # the hit came from the cache, not the profile


def test_optional_outcomes_come_back_in_order_with_their_facts(tmp_path: Path) -> None:
    root, profile, (registry, config) = setup(tmp_path)
    assert profile.time_bounded  # called in the projector (with one process)
    workspace = Workspace(root)
    refs = [MaterialRef.for_current(workspace, name, required=False) for name in ("c.csv", "bad.csv", "a.csv")]
    out = Projector(config, registry, workspace).project_many(refs)  # type: ignore[arg-type]
    assert [c.ref.path for c in out] == ["c.csv", "bad.csv", "a.csv"]
    assert [c.block.text if c.block else c.unavailable for c in out] == [
        "C.CSV,1\n",
        "this one cannot be projected",
        "A.CSV,1\n",
    ]
    assert out[0].facts == {"n": 8} and not any(c.cached for c in out)
