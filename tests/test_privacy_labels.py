"""Labels from [[labels]] rules, and how they flow into every node of an assembled context."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lychd_core.assembly import ContextOrchestrator
from lychd_core.blocks import Block, Layer
from lychd_core.config import default_config, load_config, parse_config
from lychd_core.digests import text_digest
from lychd_core.errors import ConfigError, MemoryRecordError
from lychd_core.labels import (
    LOCAL_ONLY,
    UNKNOWN_CATEGORY,
    PrivacyClass,
    PrivatizationLabel,
    join_labels,
    label_from_json,
)
from lychd_core.memory.codec import record_from_json
from lychd_core.memory.evidence import MemoryEvidence
from lychd_core.privacy import LabelRule, compile_glob, label_for, label_sources
from lychd_core.projection.materials import MaterialRef, Workspace
from tests.support.conversations import conversation

DIGEST = text_digest("x")
ROOT = Path(__file__).resolve().parents[1]


def test_restricted_unknown_carries_category_unknown_and_local_only() -> None:
    label = PrivatizationLabel.restricted_unknown()
    assert label.privacy_class is PrivacyClass.RESTRICTED and not label.lineage_known
    assert label.categories == {UNKNOWN_CATEGORY} and label.handling_constraints == {LOCAL_ONLY}


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("lychd_core/**", "lychd_core/privacy/rules.py", True),
        ("lychd_core/**", "other/lychd_core/x.py", False),
        ("/README.md", "README.md", True),
        ("/README.md", "docs/README.md", False),
        ("README.md", "docs/README.md", True),
        ("*.py", "a/b/c.py", True),
        ("*.py", "a/b/c.pyc", False),
        ("docs", "docs/x/y.md", True),
        ("src/*.py", "src/a/b.py", False),
        ("src/**/*.py", "src/a/b.py", True),
        ("src/**/*.py", "src/b.py", True),
        ("secret?.txt", "secret1.txt", True),
        ("a.b", "axb", False),
    ],
)
def test_globs_follow_gitignore_rules(pattern: str, path: str, matches: bool) -> None:
    assert bool(compile_glob(pattern).match(path)) is matches


def test_first_matching_rule_wins_and_gives_known_lineage_with_the_digest_bound_parent() -> None:
    rules = [
        LabelRule(path="secrets/**", privacy_class="restricted", handling_constraints=("local-only",)),
        LabelRule(path="**/*.py", privacy_class="public", categories=("source-code",)),
    ]
    label = label_for(rules, "src/app.py", DIGEST)
    assert label.privacy_class is PrivacyClass.PUBLIC and label.lineage_known
    assert label.material_parents == {f"src/app.py@{DIGEST}"} and label.categories == {"source-code"}
    secret = label_for(rules, "secrets/key.py", DIGEST)
    assert secret.privacy_class is PrivacyClass.RESTRICTED and secret.handling_constraints == {"local-only"}
    assert label_for(rules, "notes.txt", DIGEST) == PrivatizationLabel.restricted_unknown()
    assert label_for(rules, None, DIGEST) == PrivatizationLabel.restricted_unknown()


def test_a_rule_never_lowers_a_label_the_caller_gave() -> None:
    rules = [LabelRule(path="**", privacy_class="public")]
    given_label = PrivatizationLabel(privacy_class=PrivacyClass.PRIVATE, weight=700, lineage_known=True)
    joined = label_for(rules, "a.py", DIGEST, given_label)
    assert joined.privacy_class is PrivacyClass.PRIVATE and joined.weight == 700
    unknown = label_for(rules, "a.py", DIGEST, PrivatizationLabel.restricted_unknown())
    assert unknown.privacy_class is PrivacyClass.RESTRICTED and not unknown.lineage_known


@pytest.mark.parametrize(
    "rule",
    [
        {"path": "a/**", "privacy_class": "secret"},
        {"path": "../x", "privacy_class": "public"},
        {"path": "a\\b", "privacy_class": "public"},
        {"path": "a", "privacy_class": "public", "weight": 10_001},
        {"path": "a", "privacy_class": "public", "colour": "red"},
        {"path": "a", "privacy_class": "public", "categories": [" padded"]},
    ],
)
def test_bad_label_rules_are_config_errors(rule: dict[str, object]) -> None:
    data = default_config().model_dump(mode="json", exclude_none=True)
    data["labels"] = [rule]
    with pytest.raises(ConfigError, match="labels"):
        parse_config(data)


labels = st.builds(
    PrivatizationLabel,
    privacy_class=st.sampled_from(list(PrivacyClass)),
    weight=st.integers(0, 10_000),
    categories=st.frozensets(st.sampled_from(["a", "b", "c"])),
    subjects=st.frozensets(st.sampled_from(["s", "t"])),
    handling_constraints=st.frozensets(st.sampled_from(["local-only", "x"])),
    lineage_known=st.just(True),
) | st.just(PrivatizationLabel.restricted_unknown())


@given(st.lists(labels, min_size=1, max_size=6), labels)
def test_joining_never_lowers_influence(parts: list[PrivatizationLabel], extra: PrivatizationLabel) -> None:
    """Monotonicity: adding any label (a public one too) never lowers the joined label."""
    before = join_labels(parts)
    after = join_labels([*parts, extra])
    assert after.privacy_class >= before.privacy_class and after.weight >= before.weight
    assert after.categories >= before.categories and after.subjects >= before.subjects
    assert after.handling_constraints >= before.handling_constraints
    assert after.lineage_known <= before.lineage_known
    assert join_labels([after, before]) == after


@given(labels)
def test_label_json_round_trips(label: PrivatizationLabel) -> None:
    assert label_from_json(label.to_json()) == label


def test_label_from_json_refuses_unknown_classes() -> None:
    with pytest.raises(ValueError, match="unknown privacy class"):
        label_from_json({**PrivatizationLabel.public().to_json(), "privacy_class": "SECRET"})


def test_codex_blocks_take_labels_from_the_configured_rules() -> None:
    orch = ContextOrchestrator(load_config(ROOT / "profiles" / "default.toml"), workspace=ROOT)
    workspace = Workspace(ROOT)
    refs = [MaterialRef.for_current(workspace, "README.md"), MaterialRef.for_current(workspace, "pyproject.toml")]
    assembled = orch.assemble(run_id="r", session_id="s", query="q", codex=refs)
    orch.close()
    codex = {b.lineage.source_path: b.label for b in assembled.blocks(Layer.CODEX)}
    assert codex["README.md"].privacy_class is PrivacyClass.PUBLIC and codex["README.md"].lineage_known
    assert codex["pyproject.toml"] == PrivatizationLabel.restricted_unknown(), "no rule of the profile names it"
    sources = label_sources(assembled.node_labels)
    assert "L2:codex:pyproject.toml:verbatim@1" in sources["lineage unknown"]
    assert "L2:codex:README.md:verbatim@1" not in sources["lineage unknown"]


def test_every_selected_node_has_a_label_and_the_join_names_them() -> None:
    orch = ContextOrchestrator(default_config())
    public = PrivatizationLabel.public("q")
    private = PrivatizationLabel(privacy_class=PrivacyClass.PRIVATE, weight=10, lineage_known=True)
    assembled = orch.assemble(
        run_id="r",
        session_id="s",
        query="q",
        identity=[Block(layer=Layer.IDENTITY, key="id", text="you", label=public)],
        history=conversation(2),
        query_label=public,
        history_label=private,
    )
    assert set(assembled.node_labels) == set(assembled.plan.selected)
    assert assembled.label.privacy_class is PrivacyClass.PRIVATE
    history_nodes = [n for n in assembled.node_labels if n.startswith("history")]
    assert history_nodes and label_sources(assembled.node_labels)["class PRIVATE"] == history_nodes
    assert assembled.to_json()["label_sources"]["class PRIVATE"] == history_nodes


def _record(label: object = None) -> dict[str, object]:
    data: dict[str, object] = {
        "id": "m1",
        "revision": 1,
        "scope": {"project": "p"},
        "claim_type": "fact",
        "claim": "the build uses ruff",
        "source_provenance": "tool",
        "source_events": ["e1"],
        "confidence": 9000,
        "created": 1,
        "token_estimate": 5,
    }
    if label is not None:
        data["label"] = label
    return data


def test_memory_records_carry_an_optional_label_into_their_evidence() -> None:
    plain = record_from_json(_record())
    assert plain.label is None and "label" not in plain.to_json()
    assert MemoryEvidence.of(plain, 1, {}).label == PrivatizationLabel.restricted_unknown()
    labelled = record_from_json(_record(PrivatizationLabel.public("e1").to_json()))
    assert labelled.label == PrivatizationLabel.public("e1")
    assert labelled.digest != plain.digest, "the label is part of the record's identity"
    assert record_from_json(labelled.to_json()) == labelled
    assert MemoryEvidence.of(labelled, 1, {}).label == PrivatizationLabel.public("e1")
    with pytest.raises(MemoryRecordError, match="label"):
        record_from_json(_record({"privacy_class": "TOP"}))


def test_memory_evidence_labels_join_into_the_context() -> None:
    labelled = record_from_json(_record(PrivatizationLabel.public("e1").to_json()))
    orch = ContextOrchestrator(default_config())
    evidence = MemoryEvidence.of(labelled, 1, {})
    assembled = orch.assemble(run_id="r", session_id="s", query="q", memory=[evidence])
    assert assembled.node_labels[evidence.node_id] == PrivatizationLabel.public("e1")


def test_a_producer_names_exact_contributors_instead_of_the_whole_context() -> None:
    from lychd_core.errors import UnknownContributorError
    from lychd_core.privacy import contributors_label

    private = PrivatizationLabel(privacy_class=PrivacyClass.PRIVATE, weight=9, lineage_known=True)
    nodes = {"readme": PrivatizationLabel.public("r"), "secret": private, "query": PrivatizationLabel.public("q")}
    assert contributors_label(nodes, ["readme", "query"]).privacy_class is PrivacyClass.PUBLIC
    assert contributors_label(nodes, ["readme", "secret"]) == join_labels([nodes["readme"], private])
    assert contributors_label(nodes, []) == PrivatizationLabel.restricted_unknown()
    with pytest.raises(UnknownContributorError, match="elsewhere"):
        contributors_label(nodes, ["readme", "elsewhere"])
