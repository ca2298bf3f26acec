"""The egress gate: admit, or refuse naming the offending nodes, before any model call."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lychd_core.assembly import ContextOrchestrator
from lychd_core.blocks import Block, Layer
from lychd_core.config import default_config, parse_config
from lychd_core.errors import ConfigError, EgressRefused, UnknownTargetError
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy import EgressConfig, EgressGate, EgressTarget, decide_egress, label_problems

PUBLIC = PrivatizationLabel.public("p")
INTERNAL = PrivatizationLabel(privacy_class=PrivacyClass.INTERNAL, weight=0, lineage_known=True)
PRIVATE = PrivatizationLabel(
    privacy_class=PrivacyClass.PRIVATE, weight=5, categories=frozenset({"customer"}), lineage_known=True
)
HOSTED = EgressTarget(remote=True, max_class="internal")


def test_the_default_local_target_admits_everything() -> None:
    gate = EgressGate()
    decision = gate.check({"a": PrivatizationLabel.restricted_unknown(), "b": PRIVATE})
    assert decision.admitted and decision.target == "local"


def test_a_remote_target_refuses_and_names_each_offending_node_and_label() -> None:
    gate = EgressGate(EgressConfig(targets={"hosted": HOSTED}))
    labels = {"ok": PUBLIC, "env": INTERNAL, "secret": PRIVATE, "raw": PrivatizationLabel.restricted_unknown()}
    with pytest.raises(EgressRefused) as caught:
        gate.check(labels, "hosted")
    decision = caught.value.decision
    assert not decision.admitted
    assert [o.node_id for o in decision.offenders] == ["secret", "raw"]
    assert decision.offenders[0].reasons == ("class PRIVATE above INTERNAL",)
    assert decision.offenders[0].label == PRIVATE
    assert set(decision.offenders[1].reasons) == {
        "class RESTRICTED above INTERNAL",
        "lineage unknown",
        "handling constraint local-only",
    }
    assert "secret" in str(caught.value) and "raw" in str(caught.value)
    assert decision.to_json()["offenders"][0]["label"]["privacy_class"] == "PRIVATE"


def test_local_only_always_blocks_a_remote_target_even_when_not_listed() -> None:
    target = EgressTarget(remote=True, max_class="restricted", allow_unknown_lineage=True, blocking_constraints=())
    label = PrivatizationLabel(
        privacy_class=PrivacyClass.PUBLIC, weight=0, handling_constraints=frozenset({"local-only"}), lineage_known=True
    )
    assert label_problems(label, target) == ("handling constraint local-only",)
    assert label_problems(label, target.model_copy(update={"remote": False})) == ()


def test_category_and_subject_allow_lists() -> None:
    target = EgressTarget(max_class="restricted", allowed_categories=("source-code",), allowed_subjects=("lychd",))
    label = PrivatizationLabel(
        privacy_class=PrivacyClass.PUBLIC,
        weight=0,
        categories=frozenset({"source-code", "customer"}),
        subjects=frozenset({"acme"}),
        lineage_known=True,
    )
    assert label_problems(label, target) == ("category customer not allowed", "subject acme not allowed")


def test_unknown_lineage_passes_only_where_allowed() -> None:
    unknown = PrivatizationLabel.restricted_unknown()
    target = EgressTarget(remote=False, max_class="restricted", allow_unknown_lineage=True, blocking_constraints=())
    assert decide_egress({"n": unknown}, "t", target).admitted
    assert not decide_egress({"n": unknown}, "t", target.model_copy(update={"allow_unknown_lineage": False})).admitted


def test_nothing_to_send_is_refused_remotely() -> None:
    assert not decide_egress({}, "hosted", HOSTED).admitted


def test_an_unknown_target_name_is_a_typed_error() -> None:
    with pytest.raises(UnknownTargetError, match="known: local"):
        EgressGate().decide({"a": PUBLIC}, "elsewhere")


@pytest.mark.parametrize(
    "egress",
    [
        {"targets": {"hosted": {"max_class": "secret"}}},
        {"targets": {"hosted": {"max_class": "public", "remote": "yes please"}}},
        {"default_target": "missing"},
        {"targets": {"hosted": {"colour": "red"}}},
    ],
)
def test_bad_egress_config_is_refused(egress: dict[str, object]) -> None:
    data = default_config().model_dump(mode="json", exclude_none=True)
    data["egress"] = egress
    with pytest.raises(ConfigError, match="egress"):
        parse_config(data)


def test_assemble_with_a_target_refuses_before_retaining_anything() -> None:
    orch = ContextOrchestrator(default_config())
    with pytest.raises(EgressRefused) as caught:
        orch.assemble(run_id="r", session_id="s", query="what?", target="hosted")
    assert [o.node_id for o in caught.value.decision.offenders] == ["query"]
    assert orch.active_runs() == frozenset()
    identity = Block(layer=Layer.IDENTITY, key="id", text="you", label=PUBLIC)
    assembled = orch.assemble(
        run_id="r", session_id="s", query="what?", identity=[identity], query_label=PUBLIC, target="hosted"
    )
    assert orch.gate.check(assembled, "hosted").admitted


levels = st.sampled_from(list(PrivacyClass))


@given(st.lists(levels, min_size=1, max_size=8), levels)
def test_admitted_exactly_when_every_node_fits(classes: list[PrivacyClass], limit: PrivacyClass) -> None:
    target = EgressTarget(max_class=limit.name.lower())  # type: ignore[arg-type]
    labels = {f"n{i}": PrivatizationLabel(privacy_class=c, weight=0, lineage_known=True) for i, c in enumerate(classes)}
    decision = decide_egress(labels, "t", target)
    assert decision.admitted == all(c <= limit for c in classes)
    assert {o.node_id for o in decision.offenders} == {f"n{i}" for i, c in enumerate(classes) if c > limit}
