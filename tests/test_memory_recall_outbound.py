"""Outbound-only memory recall with a real Agent and FunctionModel (no network)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models import ModelRequestContext, ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, DeltaToolCalls, FunctionModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage, UsageLimits

from lychd_core.config import Governors
from lychd_core.errors import MemoryStoreError
from lychd_core.integrations import GovernedContext
from lychd_core.integrations.pydantic_ai_recall import OutboundRecall, reserved_governors
from lychd_core.memory.lifecycle import supersede
from lychd_core.memory.recall import (
    SEMANTIC_GUIDANCE,
    RecallEntry,
    RecallReceipt,
    RecallRefusedError,
    SemanticEnvelope,
    resolve_recall,
)
from lychd_core.stores.sqlite import SqliteMemoryStore
from tests.support.memories import memory_record


@pytest.fixture
def store(tmp_path: Path) -> SqliteMemoryStore:
    opened = SqliteMemoryStore.open(tmp_path / "memory.sqlite3")
    opened.add(memory_record(memory_id="m1", claim="The build runs with tox."))
    opened.add(memory_record(memory_id="m2", claim="Releases are tagged vX.Y.Z."))
    return opened


def receipt_for(store: SqliteMemoryStore, *ids: str, max_chars: int = 4_000, **kw: Any) -> RecallReceipt:
    entries = []
    for memory_id in ids:
        record = store.latest(memory_id)
        assert record is not None
        entries.append(RecallEntry(record.memory_id, record.revision, record.digest))
    return RecallReceipt(tuple(entries), max_chars, **kw)


class Recorder:
    def __init__(self) -> None:
        self.requests: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests.append(list(messages))
        if len(self.requests) == 1:
            return ModelResponse(parts=[ToolCallPart("lookup", {"q": "x"}, tool_call_id="t1")])
        return ModelResponse(parts=[TextPart("done")])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        self.requests.append(list(messages))
        yield "streamed answer"


def agent_with(recall: OutboundRecall[None], recorder: Recorder, **model: Any) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(recorder, **model), capabilities=[recall])

    @agent.tool_plain
    def lookup(q: str) -> str:
        return "looked up"

    return agent


def recalled(messages: list[ModelMessage]) -> list[str]:
    return [
        str(part.content)
        for m in messages
        if isinstance(m, ModelRequest)
        for part in m.parts
        if isinstance(part, UserPromptPart) and "lychd:recall" in str(part.content)
    ]


def test_recall_reaches_every_request_and_never_the_runs_messages(store: SqliteMemoryStore) -> None:
    recorder = Recorder()
    recall: OutboundRecall[None] = OutboundRecall(receipt=receipt_for(store, "m1", "m2"), source=lambda: store)
    result = agent_with(recall, recorder).run_sync("how do I build?")
    assert len(recorder.requests) == 2  # the first request and the tool follow-up
    for request in recorder.requests:
        (text,) = recalled(request)
        assert "The build runs with tox." in text and "attributed: memory m1 revision 1" in text
    assert recalled(result.all_messages()) == []  # retained messages hold no recalled bytes
    assert result.all_messages()[0].parts[0].content == "how do I build?"  # type: ignore[union-attr]
    assert all("tox" not in str(getattr(m, "instructions", "")) for m in result.all_messages())


def test_recall_reaches_a_streamed_request(store: SqliteMemoryStore) -> None:
    recorder = Recorder()
    recall: OutboundRecall[None] = OutboundRecall(receipt=receipt_for(store, "m1"), source=lambda: store)
    agent = agent_with(recall, recorder, stream_function=recorder.stream)

    async def run() -> list[ModelMessage]:
        async with agent.run_stream("how do I build?") as response:
            await response.get_output()
            return response.all_messages()

    messages = asyncio.run(run())
    assert recalled(recorder.requests[-1]) and recalled(messages) == []


@pytest.mark.parametrize("change", ["forget", "supersede", "edit"])
def test_a_changed_source_refuses_instead_of_searching_again(store: SqliteMemoryStore, change: str) -> None:
    receipt = receipt_for(store, "m1")
    if change == "forget":
        store.forget("m1", "user asked", 5)
    elif change == "supersede":
        store.transition("m1", lambda r: supersede(r, "m2", 5))
    else:
        store.transition(
            "m1", lambda r: memory_record(memory_id="m1", revision=r.revision + 1, claim="Now make.", observed=5)
        )
    recorder = Recorder()
    recall: OutboundRecall[None] = OutboundRecall(receipt=receipt, source=lambda: store)
    with pytest.raises(RecallRefusedError) as info:
        agent_with(recall, recorder).run_sync("how do I build?")
    assert info.value.reason == {"forget": "forgotten", "supersede": "superseded", "edit": "changed"}[change]
    assert recorder.requests == []  # refused before the model saw anything


def test_a_receipt_with_another_digest_is_changed(store: SqliteMemoryStore) -> None:
    forged = RecallReceipt((RecallEntry("m1", 1, "sha256:" + "0" * 64),), 4_000)
    with pytest.raises(RecallRefusedError) as info:
        resolve_recall(forged, store)
    assert info.value.reason == "changed"
    with pytest.raises(RecallRefusedError) as missing:
        resolve_recall(RecallReceipt((RecallEntry("nope", 1, "sha256:" + "0" * 64),), 4_000), store)
    assert missing.value.reason == "missing"


def test_a_source_that_changes_mid_run_refuses_the_next_request(store: SqliteMemoryStore) -> None:
    recorder = Recorder()
    recall: OutboundRecall[None] = OutboundRecall(receipt=receipt_for(store, "m1"), source=lambda: store)
    agent = agent_with(recall, recorder)

    @agent.tool_plain
    async def forget_it() -> str:  # async: runs on the loop's thread, as the store requires
        store.forget("m1", "revoked", 9)
        return "forgotten"

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        recorder.requests.append(list(messages))
        return ModelResponse(parts=[ToolCallPart("forget_it", {}, tool_call_id="f1")])

    with pytest.raises(RecallRefusedError):
        agent.run_sync("go", model=FunctionModel(model))
    assert len(recorder.requests) == 1


def test_an_empty_receipt_is_a_visible_miss_and_a_broken_store_is_not(store: SqliteMemoryStore) -> None:
    projection = resolve_recall(RecallReceipt((), 1_000), store)
    assert projection.miss and "found nothing" in projection.text and "not a failure" in projection.text

    def broken() -> SqliteMemoryStore:
        raise MemoryStoreError("store is locked")

    recall: OutboundRecall[None] = OutboundRecall(receipt=RecallReceipt((), 1_000), source=broken)
    with pytest.raises(MemoryStoreError):
        agent_with(recall, Recorder()).run_sync("q")


def test_the_full_size_is_reserved_and_never_cut(store: SqliteMemoryStore) -> None:
    with pytest.raises(RecallRefusedError) as info:
        resolve_recall(receipt_for(store, "m1", max_chars=50), store)
    assert info.value.reason == "over-bound"
    recall: OutboundRecall[None] = OutboundRecall(
        receipt=receipt_for(store, "m1", max_chars=3_000), source=lambda: store
    )
    governors = reserved_governors(Governors(char_cap=10_000), recall)
    assert governors.char_cap == 7_000
    recorder = Recorder()
    agent: Agent[None, str] = Agent(
        FunctionModel(recorder), capabilities=[GovernedContext(governors=governors), recall]
    )

    @agent.tool_plain
    def lookup(q: str) -> str:
        return "looked up"

    agent.run_sync("q")
    assert all(recalled(request) for request in recorder.requests)


def test_semantic_variant_carries_its_envelope_and_guidance(store: SqliteMemoryStore) -> None:
    record = store.latest("m1")
    assert record is not None
    envelope = SemanticEnvelope("gen-7", "index@3", 7_000, 5, 4_000, "partial", ("2 candidates over the bound",))
    receipt = RecallReceipt((RecallEntry("m1", 1, record.digest, similarity=8_100),), 4_000, semantic=envelope)
    text = resolve_recall(receipt, store).text
    assert '"schema":"lychd.semantic-recall@2"' in text and '"coverage":"partial"' in text
    assert "similarity 8100/10000, not support" in text and "2 candidates over the bound" in text
    recorder = Recorder()
    recall: OutboundRecall[None] = OutboundRecall(receipt=receipt, source=lambda: store)
    agent_with(recall, recorder).run_sync("q")
    assert recall.get_instructions() == [SEMANTIC_GUIDANCE]
    assert "exhaustive" in SEMANTIC_GUIDANCE and "uncertainty" in SEMANTIC_GUIDANCE
    lexical = resolve_recall(receipt_for(store, "m1"), store).text
    assert "semantic-recall" not in lexical and "similarity" not in lexical


class CountingRecorder(FunctionModel):
    """Records what the pre-request count saw; ``during_count`` runs inside the count."""

    def __init__(self, recorder: Recorder, during_count: Callable[[], object] = lambda: None) -> None:
        super().__init__(recorder)
        self.counted: list[list[ModelMessage]] = []
        self.during_count = during_count

    async def count_tokens(
        self, messages: list[ModelMessage], model_settings: ModelSettings | None, parameters: ModelRequestParameters
    ) -> RequestUsage:
        self.counted.append(list(messages))
        self.during_count()
        return RequestUsage(input_tokens=10)


@dataclass
class ForgetAfterPreparation(AbstractCapability[None]):
    """A later capability whose preparation forgets a recalled memory: the count comes after it."""

    store: SqliteMemoryStore

    async def prepare_model_request(
        self, ctx: RunContext[None], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self.store.forget("m1", "revoked while preparing", 9)
        return request_context


COUNT_FIRST = UsageLimits(count_tokens_before_request=True)


def test_the_pre_count_sees_exactly_what_is_sent(store: SqliteMemoryStore) -> None:
    recorder = Recorder()
    model = CountingRecorder(recorder)
    recall: OutboundRecall[None] = OutboundRecall(receipt=receipt_for(store, "m1"), source=lambda: store)
    agent: Agent[None, str] = Agent(model, capabilities=[recall])

    @agent.tool_plain
    def lookup(q: str) -> str:
        return "looked up"

    agent.run_sync("how do I build?", usage_limits=COUNT_FIRST)
    assert len(model.counted) == len(recorder.requests) == 2
    for counted, sent in zip(model.counted, recorder.requests, strict=True):
        assert recalled(counted) == recalled(sent) != []


def test_a_source_forgotten_before_the_pre_count_refuses_before_counting(store: SqliteMemoryStore) -> None:
    recorder = Recorder()
    model = CountingRecorder(recorder)
    recall: OutboundRecall[None] = OutboundRecall(receipt=receipt_for(store, "m1"), source=lambda: store)
    agent: Agent[None, str] = Agent(model, capabilities=[recall, ForgetAfterPreparation(store)])
    with pytest.raises(RecallRefusedError) as info:
        agent.run_sync("how do I build?", usage_limits=COUNT_FIRST)
    assert info.value.reason == "forgotten"
    assert model.counted == [] and recorder.requests == []  # neither counted nor sent


def test_a_source_forgotten_during_the_pre_count_refuses_before_sending(store: SqliteMemoryStore) -> None:
    recorder = Recorder()
    model = CountingRecorder(recorder, during_count=lambda: store.forget("m1", "revoked while counting", 9))
    recall: OutboundRecall[None] = OutboundRecall(receipt=receipt_for(store, "m1"), source=lambda: store)
    with pytest.raises(RecallRefusedError) as info:
        Agent(model, capabilities=[recall]).run_sync("how do I build?", usage_limits=COUNT_FIRST)
    assert info.value.reason == "forgotten"
    assert len(model.counted) == 1 and recorder.requests == []  # counted, then refused before sending


@pytest.mark.parametrize("streamed", [False, True])
def test_a_source_forgotten_after_preparation_refuses_before_sending(store: SqliteMemoryStore, streamed: bool) -> None:
    recorder = Recorder()
    recall: OutboundRecall[None] = OutboundRecall(receipt=receipt_for(store, "m1"), source=lambda: store)
    agent: Agent[None, str] = Agent(
        FunctionModel(recorder, stream_function=recorder.stream), capabilities=[recall, ForgetAfterPreparation(store)]
    )

    async def run_streamed() -> None:
        async with agent.run_stream("how do I build?") as response:
            await response.get_output()

    with pytest.raises(RecallRefusedError) as info:
        asyncio.run(run_streamed()) if streamed else agent.run_sync("how do I build?")
    assert info.value.reason == "forgotten" and recorder.requests == []
