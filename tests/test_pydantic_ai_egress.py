"""GovernedContext checks egress before the model is called: a refused request never reaches it.

A real ``pydantic_ai.Agent`` drives a ``FunctionModel`` that records every call it gets.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from lychd_core.blocks import Block, Layer
from lychd_core.config import default_config
from lychd_core.errors import EgressRefused, UnknownTargetError
from lychd_core.integrations import CallLabels, GovernedContext
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy import EgressConfig, EgressDecision, EgressTarget

PUBLIC = PrivatizationLabel.public("caller")
PRIVATE = PrivatizationLabel(privacy_class=PrivacyClass.PRIVATE, weight=0, lineage_known=True)
HOSTED = EgressConfig(targets={"hosted": EgressTarget(remote=True, max_class="internal")})


def recording_agent(capability: GovernedContext[None], calls: list[list[ModelMessage]], tool: bool = False) -> Agent:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(list(messages))
        if tool and len(calls) == 1:
            return ModelResponse(parts=[ToolCallPart(tool_name="lookup", args={}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    agent: Agent[None, str] = Agent(FunctionModel(model), capabilities=[capability])

    @agent.tool_plain
    def lookup() -> str:
        return "found"

    return agent


def block(label: PrivatizationLabel, key: str = "rules") -> Block:
    return Block(layer=Layer.IDENTITY, key=key, text="You help.", label=label)


def test_a_refused_request_never_reaches_the_model() -> None:
    calls: list[list[ModelMessage]] = []
    decisions: list[EgressDecision] = []
    labels = CallLabels(query=PUBLIC)
    capability: GovernedContext[None] = GovernedContext(
        floor=[block(PRIVATE)], target="hosted", egress=HOSTED, labels=labels, on_egress=decisions.append
    )
    with pytest.raises(EgressRefused) as caught:
        recording_agent(capability, calls).run_sync("hello")
    assert calls == [], "the model was called despite the refusal"
    assert [o.node_id for o in caught.value.decision.offenders] == ["L1:rules"]
    assert decisions and not decisions[0].admitted


def test_an_unlabelled_query_is_refused_remotely_and_admitted_locally() -> None:
    calls: list[list[ModelMessage]] = []
    remote: GovernedContext[None] = GovernedContext(floor=[block(PUBLIC)], target="hosted", egress=HOSTED)
    with pytest.raises(EgressRefused) as caught:
        recording_agent(remote, calls).run_sync("hello")
    assert calls == [] and [o.node_id for o in caught.value.decision.offenders] == ["query"]
    local: GovernedContext[None] = GovernedContext(floor=[block(PRIVATE)])
    assert recording_agent(local, calls).run_sync("hello").output == "done"
    assert len(calls) == 1, "the default local target admits everything"


def test_every_request_of_a_run_is_checked_including_tool_follow_ups() -> None:
    calls: list[list[ModelMessage]] = []
    decisions: list[EgressDecision] = []
    labels = CallLabels(query=PUBLIC, continuation=PUBLIC)
    capability: GovernedContext[None] = GovernedContext(
        floor=[block(PUBLIC)], target="hosted", egress=HOSTED, labels=labels, on_egress=decisions.append
    )
    assert recording_agent(capability, calls, tool=True).run_sync("hello").output == "done"
    assert len(calls) == 2 and [d.admitted for d in decisions] == [True, True]
    blocked: list[list[ModelMessage]] = []
    unlabelled: GovernedContext[None] = GovernedContext(
        floor=[block(PUBLIC)], target="hosted", egress=HOSTED, labels=CallLabels(query=PUBLIC)
    )
    with pytest.raises(EgressRefused) as caught:
        recording_agent(unlabelled, blocked, tool=True).run_sync("hello")
    assert len(blocked) == 1, "the tool follow-up (an unlabelled continuation) never reached the model"
    assert [o.node_id for o in caught.value.decision.offenders] == ["continuation"]


def test_dynamic_floor_labels_join_the_check() -> None:
    calls: list[list[ModelMessage]] = []
    dynamic = Block(layer=Layer.KARMA, key="notes", text="private notes", label=PRIVATE)

    def provider(ctx: Any) -> list[Block]:
        return [dynamic]

    capability: GovernedContext[None] = GovernedContext(
        floor=[block(PUBLIC)], dynamic_floor=provider, target="hosted", egress=HOSTED, labels=CallLabels(query=PUBLIC)
    )
    with pytest.raises(EgressRefused) as caught:
        recording_agent(capability, calls).run_sync("hello")
    assert calls == [] and [o.node_id for o in caught.value.decision.offenders] == ["L4:notes"]


def test_from_config_takes_targets_and_labels_and_refuses_unknown_targets() -> None:
    config = default_config()
    capability: GovernedContext[None] = GovernedContext.from_config(
        config, floor=[block(PUBLIC)], target="hosted", labels=CallLabels(query=PUBLIC)
    )
    calls: list[list[ModelMessage]] = []
    assert recording_agent(capability, calls).run_sync("hello").output == "done" and len(calls) == 1
    with pytest.raises(UnknownTargetError):
        GovernedContext.from_config(config, target="nowhere")
    with pytest.raises(TypeError, match=r"CallLabels\.query"):
        CallLabels(query="public")  # type: ignore[arg-type]


def test_the_documented_egress_example_runs_and_prints_what_it_says() -> None:
    import contextlib
    import io
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "integrations" / "pydantic-ai.md").read_text()
    section = doc.split("## Egress", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    promised = [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", code, flags=re.M)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "pydantic-ai.md", "exec"), {"__name__": "doc_example"})
    assert out.getvalue().splitlines() == promised
