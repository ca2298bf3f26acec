"""Projector: rule lookup, blocks and their lineage, required/optional refusals."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lychd_structure_python import PROFILE as STRUCTURE
from lychd_verbatim import PROFILE as VERBATIM
from pydantic import BaseModel, ConfigDict

from lychd_core.blocks import Layer
from lychd_core.config import default_config, parse_config
from lychd_core.digests import sha256_digest
from lychd_core.errors import (
    DigestMismatchError,
    LychdError,
    MaterialScopeError,
    MediaTypeError,
    ProfileMismatchError,
    RequiredMaterialUnavailable,
    RevisionMismatchError,
    UnknownPluginError,
)
from lychd_core.families import PluginFamily, Projected, SourceMaterial, Unavailable
from lychd_core.labels import PrivatizationLabel
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.outcomes import check_outcome
from lychd_core.projection.projector import Contribution, Projector
from lychd_core.registry import registry_from


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass
class FakeProfile:
    """A third-party profile that misbehaves in a chosen way."""

    outcome: Any
    name: str = "fake.profile"
    revision: int = 1
    options_model: type[BaseModel] = NoOptions
    media_types: frozenset[str] = frozenset({"text/csv"})
    parser_version: str = "fake 1"

    def project(self, source: SourceMaterial, options: BaseModel) -> Any:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


def registry(*extra: object) -> Any:
    objects = [(PluginFamily.PROJECTION_PROFILE, obj) for obj in (STRUCTURE, VERBATIM, *extra)]
    return registry_from(objects)


def config(**rules: Any) -> Any:
    base = default_config().model_dump(mode="json")
    base["projection"]["rules"].update(rules)
    return parse_config(base)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text('"""Module."""\n\ndef f(x: int) -> int:\n    return x\n')
    (tmp_path / "README.md").write_text("# Title\n\nBody.\n")
    (tmp_path / "broken.py").write_text('print "py2"\n')
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    (tmp_path / "x.c").write_text("int main(void) { return 0; }\n")
    return tmp_path


def projector(root: Path, cfg: Any = None, reg: Any = None) -> Projector:
    return Projector(cfg or default_config(), reg or registry(), Workspace(root))


def ref(root: Path, path: str, **fields: Any) -> MaterialRef:
    return MaterialRef.for_current(Workspace(root), path, **fields)


def test_python_becomes_a_codex_block_with_full_lineage(root: Path) -> None:
    label = PrivatizationLabel.public("repo:lychd")
    contribution = projector(root).project(ref(root, "pkg/mod.py", label=label, lineage=("run:7",)))
    block = contribution.block
    assert block is not None and contribution.ok and contribution.unavailable is None
    assert block.layer is Layer.CODEX and block.key == "codex:pkg/mod.py:structure.python@1"
    assert block.label == label
    assert block.lineage.source_path == "pkg/mod.py"
    assert block.lineage.source_digests == (sha256_digest((root / "pkg" / "mod.py").read_bytes()),)
    assert block.lineage.profile == "structure.python@1" and block.lineage.parser_version == STRUCTURE.parser_version
    assert "def f(x: int) -> int: ...  # L3" in block.text and "return x" not in block.text
    assert contribution.media_type == "text/x-python" and contribution.profile_pin == "structure.python@1"
    assert contribution.to_json()["lineage_tags"] == ["run:7"]


def test_markdown_is_verbatim(root: Path) -> None:
    block = projector(root).project(ref(root, "README.md")).block
    assert block is not None and block.text == "# Title\n\nBody.\n" and block.key == "codex:README.md:verbatim@1"


def test_required_parse_failure_raises_never_falls_back(root: Path) -> None:
    with pytest.raises(RequiredMaterialUnavailable) as caught:
        projector(root).project(ref(root, "broken.py"))
    assert caught.value.profile == "structure.python@1" and "cannot parse" in caught.value.reason


def test_optional_parse_failure_is_explained_not_hidden(root: Path) -> None:
    contribution = projector(root).project(ref(root, "broken.py", required=False))
    assert contribution.block is None and "cannot parse" in (contribution.unavailable or "")
    assert contribution.profile_pin == "structure.python@1" and contribution.media_type == "text/x-python"


def test_media_type_without_rule(root: Path) -> None:
    data = default_config().model_dump(mode="json")
    del data["projection"]["rules"]["text/x-c"]
    without_c = parse_config(data)
    with pytest.raises(MediaTypeError) as caught:
        projector(root, without_c).project(ref(root, "x.c"))
    assert "no projection rule for media type 'text/x-c'" in str(caught.value)
    optional = projector(root, without_c).project(ref(root, "x.c", required=False))
    assert optional.block is None and "no projection rule" in (optional.unavailable or "")
    assert optional.media_type == "text/x-c"


def test_reference_profile_must_match_the_rule(root: Path) -> None:
    assert projector(root).project(ref(root, "pkg/mod.py", profile="structure.python@1")).ok
    with pytest.raises(ProfileMismatchError) as caught:
        projector(root).project(ref(root, "pkg/mod.py", profile="verbatim@1"))
    assert "selects structure.python@1" in str(caught.value)
    with pytest.raises(ProfileMismatchError):
        projector(root).project(ref(root, "pkg/mod.py", profile="structure.python@2"))


def test_unregistered_profile_and_revision_mismatch(root: Path) -> None:
    unknown = config(**{"text/x-python": {"profile": "structur.python", "revision": 1}})
    with pytest.raises(UnknownPluginError):
        projector(root, unknown).project(ref(root, "pkg/mod.py"))
    wrong = config(**{"text/x-python": {"profile": "structure.python", "revision": 2}})
    with pytest.raises(RevisionMismatchError):
        projector(root, wrong).project(ref(root, "pkg/mod.py"))


def test_rule_selecting_a_profile_that_does_not_accept_the_type(root: Path) -> None:
    cfg = config(**{"text/csv": {"profile": "structure.python", "revision": 1}})
    with pytest.raises(MediaTypeError):
        projector(root, cfg).project(ref(root, "data.csv"))


def test_rule_options_reach_the_profile(root: Path) -> None:
    cfg = config(
        **{"text/x-python": {"profile": "structure.python", "revision": 1, "options": {"definitions": "none"}}}
    )
    block = projector(root, cfg).project(ref(root, "pkg/mod.py")).block
    assert block is not None and "def f" not in block.text


def test_digest_mismatch_refuses_or_explains(root: Path) -> None:
    stale = ref(root, "README.md")
    (root / "README.md").write_text("# Changed\n")
    with pytest.raises(DigestMismatchError):
        projector(root).project(stale)
    optional = projector(root).project(stale.model_copy(update={"required": False}))
    assert optional.block is None and "DigestMismatchError" in (optional.unavailable or "")


def test_scope_errors_raise_even_for_optional_references(root: Path) -> None:
    (root / "out").symlink_to("/etc/hostname")
    bad = MaterialRef(path="out", digest=sha256_digest(b""), required=False)
    with pytest.raises(MaterialScopeError):
        projector(root).project(bad)


def test_character_budget_from_the_reference(root: Path) -> None:
    contribution = projector(root).project(ref(root, "README.md", max_chars=5, required=False))
    assert contribution.block is None and "over the bound of 5" in (contribution.unavailable or "")


def _cyclic_facts() -> Any:
    loop: list[Any] = []
    loop.append(loop)
    return {"loop": loop}


def _nested_facts(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return {"deep": value}


def _shared_facts(levels: int) -> Any:
    # Each level holds the one below twice: 2**levels lists to encode, from 64 objects.
    value: Any = ["leaf"]
    for _ in range(levels):
        value = [value, value]
    return {"shared": value}


@pytest.mark.parametrize(
    ("outcome", "words"),
    [
        (Projected(text="x" * 50), "over the bound"),
        (Projected(text="a\nb", line_map=(1,)), "line map"),
        (Projected(text="a\nb", line_map=(1, 0)), "line map"),
        (Projected(text="a\nb", line_map=(-2, 1)), "line map"),
        (Projected(text="a\nb", line_map=(1, True)), "line map"),  # a bool is not a line number
        (Projected(text="a\nb", line_map=(1, 2.0)), "line map"),  # type: ignore[arg-type]
        (Projected(text="a\nb", line_map=(1, "2")), "line map"),  # type: ignore[arg-type]
        (Projected(text="a", facts={"f": 1.5}), "canonical JSON"),  # type: ignore[dict-item]
        (Projected(text="a", facts=_cyclic_facts()), "contains itself"),
        (Projected(text="a", facts=_nested_facts(400)), "nested deeper"),
        (Projected(text="a", facts=_shared_facts(64)), "arrays and objects"),
        ("not an outcome", "not Projected"),
        (RuntimeError("boom"), "raised RuntimeError: boom"),
        (Unavailable(""), "no reason"),
    ],
)
def test_misbehaving_profiles_become_unavailable(root: Path, outcome: Any, words: str) -> None:
    fake = FakeProfile(outcome)
    cfg = config(**{"text/csv": {"profile": "fake.profile", "revision": 1}})
    contribution = projector(root, cfg, registry(fake)).project(ref(root, "data.csv", required=False, max_chars=10))
    assert contribution.block is None and words in (contribution.unavailable or "")


def test_check_outcome_accepts_a_good_projection() -> None:
    good = Projected(text="a\nb", facts={"k": [1]}, line_map=(1, 2))
    assert check_outcome(good, 10) is good


def test_facts_are_detached_copies(root: Path) -> None:
    contribution = projector(root).project(ref(root, "pkg/mod.py"))
    facts: Any = contribution.facts
    facts["definitions"].clear()
    again: Any = contribution.facts
    assert again["definitions"]


def test_project_many_keeps_order_and_processes_agree(root: Path) -> None:
    paths = ["README.md", "pkg/mod.py", "broken.py", "x.c", "data.csv", "pkg/mod.py"]
    refs = [ref(root, p, required=False) for p in paths]
    serial = projector(root).project_many(refs)
    parallel = projector(root).project_many(refs, processes=2)
    assert [c.ref.source for c in serial] == paths
    assert [c.digest for c in serial] == [c.digest for c in parallel]
    assert [c.ok for c in serial] == [True, True, False, True, True, True]


def test_project_many_progress_counts_every_reference(root: Path) -> None:
    seen: list[int] = []
    refs = [ref(root, p, required=False) for p in ["README.md", "pkg/mod.py", "x.c"]]
    projector(root).project_many(refs, progress=seen.append)
    assert sum(seen) == 3


def test_processes_must_be_positive(root: Path) -> None:
    with pytest.raises(LychdError):
        projector(root).project_many([], processes=0)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=25)
@given(st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=200))
def test_same_input_same_contribution_digest(root: Path, text: str) -> None:
    (root / "notes.txt").write_text(text, encoding="utf-8")
    first = projector(root).project(ref(root, "notes.txt", required=False))
    second = projector(root).project(ref(root, "notes.txt", required=False))
    assert isinstance(first, Contribution) and first.digest == second.digest
    if first.block is not None:
        assert first.block.text == text and first.block.content_hash == second.block.content_hash  # type: ignore[union-attr]


def test_binary_file_named_py_is_refused_not_projected(root: Path) -> None:
    (root / "blob.py").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
    with pytest.raises(MediaTypeError) as caught:
        projector(root).project(ref(root, "blob.py"))
    assert "application/octet-stream" in str(caught.value) or "no projection rule" in str(caught.value)
    pinned = ref(root, "blob.py", media_type="text/x-python")
    with pytest.raises(MediaTypeError):
        projector(root).project(pinned)
