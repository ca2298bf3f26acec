"""A reversible Privacy Cut end to end: prepare → verify → seal → a real Pydantic AI agent →
rehydrate; and the attacks on that path (foreign, altered and replayed tokens, expiry)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from lychd_core.config import default_config
from lychd_core.errors import LeaseExpired, RehydratedFlowRefused, RehydrationRefused, RejectReason
from lychd_core.privacy import EgressGate, SealAuthority
from lychd_core.privacy.reversible import PreparedReversibleCut
from lychd_core.privacy.vault import ClaimRequest, LeaseState, Sink, Vault, rehydrate, return_digest
from tests.support.cuts import NOW, OWNER, report_projection
from tests.support.reversible import SCHEMA, SLOT_TOKEN, Triage, open_vault, prepare_reversible, slot_tokens
from tests.support.sensitive import captured
from tests.support.vaults import Clock


def triage_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A remote model that answers in structured output, naming the owner by the token it was shown."""
    prompt = next(
        part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart) and isinstance(part.content, str)
    )
    token = SLOT_TOKEN.findall(prompt)[0]
    vulnerable = [line.split(" ")[0] for line in prompt.splitlines() if " vulnerable " in line]
    answer = {
        "owner": token,
        "summary": f"upgrade {', '.join(vulnerable)}; the token {token} in prose is left alone",
        "findings": [{"dependency": name, "owner": token} for name in vulnerable],
    }
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, answer)])


def ask_agent(prepared: PreparedReversibleCut) -> dict[str, Any]:
    agent = Agent(FunctionModel(triage_model), output_type=Triage)
    prompt = "Triage this report.\n" + "".join(item.text for item in prepared.prepared.candidate.items)
    return agent.run_sync(prompt).output.model_dump(mode="json")


def claim_for(returned: Any, **changes: Any) -> ClaimRequest:
    values: dict[str, Any] = {
        "principal": "agent-1",
        "run_id": "run-1",
        "attempt": 1,
        "station": "station-a",
        "return_digest": return_digest(returned),
    }
    return ClaimRequest(**(values | changes))


def test_a_reversible_cut_round_trips_through_a_real_agent(tmp_path: Path) -> None:
    gate = EgressGate(default_config().egress, SealAuthority())
    with open_vault(tmp_path) as vault:
        prepared = prepare_reversible(vault, report_projection(), gate.authority)
        cut, verification = prepared.prepared.cut, prepared.prepared.verification
        assert cut.reversible and cut.lease_id == prepared.lease_id and gate.authority.is_sealed(cut)
        assert verification.verdict == "pass" and verification.reversal is not None
        assert verification.reversal.lease_id == prepared.lease_id and "reconstruction" in verification.checks
        tokens = slot_tokens(prepared)
        assert len(set(tokens)) == 1 and len(tokens) == 3  # one owner, one token, in every record
        candidate = "".join(item.text for item in prepared.prepared.candidate.items)
        assert OWNER not in candidate and "<redacted>" not in candidate
        admitted = gate.admit_sealed(
            cut, prepared.prepared.candidate, consumer_kind="model", consumer_id="hosted-llm",
            purpose="vulnerability-triage", now=NOW,
        )  # fmt: skip
        assert admitted.admitted and admitted.target == "hosted"

        returned = ask_agent(prepared)
        claim = claim_for(returned)
        assert vault.claim(prepared.lease_id, claim).state is LeaseState.CLAIMED
        result = rehydrate(vault, prepared.lease_id, claim, returned, SCHEMA, validate=Triage.model_validate)
        assert vault.get(prepared.lease_id).state is LeaseState.CONSUMED
        assert not vault.get(prepared.lease_id).key_present
    value = Triage.model_validate(result.value_for(Sink.LOCAL_VIEW))
    assert value.owner == OWNER and {f.owner for f in value.findings} == {OWNER} and len(value.findings) == 2
    assert tokens[0] in value.summary and OWNER not in value.summary  # prose is never scanned
    assert result.receipt.substitutions == {"owner": 3}
    assert result.receipt.cut_id == cut.cut_id and result.receipt.policy_digest == cut.policy_digest
    assert result.label.privacy_class == prepared.prepared.source.label.privacy_class
    assert "local-only" in result.label.handling_constraints
    refused = gate.decide({"rehydrated": result.label}, "hosted")
    assert not refused.admitted and "handling constraint local-only" in refused.reasons
    assert gate.decide({"rehydrated": result.label}, "local").admitted
    with pytest.raises(RehydratedFlowRefused):
        result.value_for(Sink.REMOTE_CALL)
    evidence = json.dumps([prepared.to_json(), result.receipt.model_dump(mode="json"), repr(result)])
    captured(evidence)
    assert tokens[0] not in evidence and OWNER not in evidence


def _attack(vault: Vault, prepared: PreparedReversibleCut, other: PreparedReversibleCut, attack: str) -> Any:
    token = slot_tokens(prepared)[0]
    if attack == "token from another lease":
        token = slot_tokens(other)[0]
    elif attack == "altered token":
        token = re.sub(r"[0-9a-f](?=>>$)", lambda m: "0" if m.group(0) != "0" else "1", token)
    return {"owner": token, "summary": "s", "findings": []}


@pytest.mark.parametrize(
    ("attack", "reason"),
    [("token from another lease", RejectReason.CROSS_NAMESPACE), ("altered token", RejectReason.INVENTED_OR_ALTERED)],
)
def test_foreign_or_altered_tokens_reconstruct_nothing(tmp_path: Path, attack: str, reason: RejectReason) -> None:
    with open_vault(tmp_path) as vault:
        prepared = prepare_reversible(vault, report_projection())
        other = prepare_reversible(vault, report_projection())
        returned = _attack(vault, prepared, other, attack)
        claim = claim_for(returned)
        vault.claim(prepared.lease_id, claim)
        with pytest.raises(RehydrationRefused) as refused:
            rehydrate(vault, prepared.lease_id, claim, returned, SCHEMA)
        assert refused.value.reason is reason and OWNER not in str(refused.value)
        assert vault.get(prepared.lease_id).state is LeaseState.REVOKED
        assert not vault.get(prepared.lease_id).key_present
        assert vault.get(other.lease_id).state is LeaseState.ACTIVE  # the other lease is untouched


def test_a_replayed_claim_and_an_expired_lease_reconstruct_nothing(tmp_path: Path) -> None:
    clock = Clock(NOW)
    with open_vault(tmp_path, clock) as vault:
        prepared = prepare_reversible(vault, report_projection())
        late = prepare_reversible(vault, report_projection())
        returned = {"owner": slot_tokens(prepared)[0], "summary": "s", "findings": []}
        claim = claim_for(returned)
        vault.claim(prepared.lease_id, claim)
        rehydrate(vault, prepared.lease_id, claim, returned, SCHEMA)
        with pytest.raises(RehydrationRefused) as replayed:
            rehydrate(vault, prepared.lease_id, claim, returned, SCHEMA)
        assert replayed.value.reason is RejectReason.REPLAYED

        late_return = {"owner": slot_tokens(late)[0], "summary": "s", "findings": []}
        late_claim = claim_for(late_return)
        vault.claim(late.lease_id, late_claim)
        clock.now = late.grant.expires_at
        with pytest.raises(LeaseExpired):
            rehydrate(vault, late.lease_id, late_claim, late_return, SCHEMA)
        view = vault.get(late.lease_id)
        assert view.state is LeaseState.EXPIRED and not view.key_present
