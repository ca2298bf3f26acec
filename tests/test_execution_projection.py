"""Execution Projection input: caller-owned state replaces settled history for one call."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.assembly import ContextOrchestrator
from lychd_core.assembly.execution import ExecutionProjection
from lychd_core.blocks import Block, Layer
from lychd_core.errors import ContextBudgetExceededError, ExecutionProjectionError
from lychd_core.labels import PrivacyClass
from tests.support.compaction import private
from tests.support.conversations import conversation, tool_call, tool_return
from tests.test_compression_assembly import config


def projection(**overrides: Any) -> ExecutionProjection:
    data: dict[str, Any] = {
        "placement": "pattern:fix@2/step:plan",
        "owner": "composition:fixer",
        "max_chars": 10_000,
        "items": [
            {"key": "plan", "kind": "state", "text": "step 3 of 5: tests fail in parser", "required": True,
             "revision": 7, "lineage": ["sha256:" + "1" * 64], "label": private("plan").model_dump()},
            {"key": "ci", "kind": "observation", "text": "pytest: 2 failed", "revision": 1,
             "omissions": [{"kind": "truncated", "reason": "log tail only"}]},
        ],
    }  # fmt: skip
    data.update(overrides)
    return ExecutionProjection.parse(data)


def test_projection_replaces_settled_history_and_keeps_floor_query_and_continuation() -> None:
    history = conversation(6, tools=1)
    continuation = [tool_call("run", "k1"), tool_return("run", "k1", "ok")]
    before = [dict(m) for m in history]
    orchestrator = ContextOrchestrator(config())
    assembled = orchestrator.assemble(
        run_id="r",
        session_id="s",
        query="what next?",
        identity=[Block(layer=Layer.IDENTITY, key="id", text="You fix bugs.")],
        history=history,
        continuation=continuation,
        execution=projection(),
    )
    (message,) = assembled.history
    text = message["parts"][0]["content"]
    assert "execution projection for pattern:fix@2/step:plan" in text
    assert "step 3 of 5" in text and "pytest: 2 failed" in text and '"revision":7' in text
    assert "omitted by its owner: truncated: log tail only" in text
    assert assembled.continuation == continuation and assembled.query == "what next?"
    assert [b.key for b in assembled.blocks(Layer.IDENTITY)] == ["id"]
    assert assembled.history_start == len(history) and history == before  # excluded, never deleted
    assert any("replaced by pattern:fix@2/step:plan" in item.reason for item in assembled.not_nodes)
    report = assembled.execution
    assert report is not None and [i["kept"] for i in report["items"]] == [True, True]
    assert report["items"][0]["lineage"] == ["sha256:" + "1" * 64]
    assert assembled.label.privacy_class >= PrivacyClass.PRIVATE


def test_required_state_that_does_not_fit_refuses_before_inference() -> None:
    big = projection(
        items=[{"key": "plan", "kind": "state", "text": "s" * 5_000, "required": True, "revision": 1}],
    )
    orchestrator = ContextOrchestrator(config(char_cap=2_000))
    with pytest.raises(ContextBudgetExceededError) as info:
        orchestrator.assemble(run_id="r", session_id="s", query="q", execution=big)
    assert info.value.parts["execution"] == 5_000
    assert orchestrator.active_runs() == frozenset()


def test_optional_observation_that_does_not_fit_is_omitted_with_a_reason() -> None:
    items = [
        {"key": "plan", "kind": "state", "text": "short plan", "required": True, "revision": 1},
        {"key": "log", "kind": "observation", "text": "l" * 9_000, "revision": 1},
    ]
    assembled = ContextOrchestrator(config(char_cap=4_000)).assemble(
        run_id="r", session_id="s", query="q", execution=projection(items=items)
    )
    assert assembled.execution is not None
    assert [i["kept"] for i in assembled.execution["items"]] == [True, False]
    explanation = assembled.plan.explanations["execution:observation:log"]
    assert not explanation.selected and explanation.reason.value == "character-limit"


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"placement": ""}, "placement"),
        ({"max_chars": 5}, "over the projection's own bound"),
        (
            {"items": [{"key": "a", "kind": "state", "text": "x", "revision": 1}] * 2},
            "unique",
        ),
        ({"items": [{"key": "a", "kind": "state", "text": "x", "revision": 0}]}, "revision"),
        ({"items": [{"key": "a", "kind": "guess", "text": "x", "revision": 1}]}, "kind"),
    ],
)
def test_malformed_projections_are_typed_refusals(overrides: dict[str, Any], match: str) -> None:
    with pytest.raises(ExecutionProjectionError, match=match):
        projection(**overrides)
