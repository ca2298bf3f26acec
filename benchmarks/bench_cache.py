"""Cache economics: what a provider's prefix cache makes of each history trim, over one long session.

A real ``Agent`` on a ``FunctionModel`` runs a tool-using session of ``--turns`` turns
(300 by default): most turns call a tool, some two in parallel, some retry a tool
(``ModelRetry``), tool returns are large (1.5k-6k characters), under a 2k-character
floor. Five contenders, the same scripted conversation:

* ``chunked`` — ``GovernedContext`` with ``[history] trim = "chunked"``, ``low_water`` 60;
* ``cost`` — ``GovernedContext`` with ``[history] trim = "cost"`` and the Anthropic-style
  prices below declared (write 1.25x, read 0.1x, lifetime 12 requests);
* ``newest`` — ``GovernedContext`` with the reference trim (the newest groups that fit);
* ``langchain`` — LangChain ``trim_messages`` (strategy ``last``, ``start_on="human"``, the
  same character cap and per-message cost) as a request-only capability;
* ``notrim`` — no capability: every request carries the whole history (over the cap).

Every request's bytes are recorded inside the model (the floor, then each message's
compact wire JSON) and fed to two simulated prefix caches, priced per input token
(tokens: exact ``o200k_base``):

* Anthropic-style automatic caching: the longest live cached prefix is read at 0.1x,
  the rest written at 1.25x; an entry lives 12 requests after its last use;
* OpenAI-style: the same, reads in whole 128-token blocks from 1,024 tokens on, at 0.1x;
  the rest at 1x.

Reported per contender: session cost and cost per input token (each style), cache-read
share, mean context tokens per request, orphaned tool calls or returns sent, requests
over the character cap. Goals: chunked (and cost) session cost <= 0.4x newest, mean
context >= 0.75x newest, read share >= 0.85, 0 orphans, cap never exceeded.

Run: python benchmarks/bench_cache.py [--turns 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.messages import BaseMessage, trim_messages
from lychd_tokens import TiktokenCounter
from lychd_tokens.simple import NoOptions
from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.models.function import AgentInfo, FunctionModel

from lychd_core.blocks import Block, Layer
from lychd_core.config import Governors
from lychd_core.integrations import GovernedContext
from lychd_core.integrations.langchain_wire import from_wire
from lychd_core.integrations.pydantic_ai import to_wire
from lychd_core.tokens import HistoryConfig

GOVERNORS = Governors()  # the reference: 20 groups, 96,000 characters
CAP = GOVERNORS.char_cap
LIFETIME = 12
FLOOR = [Block(layer=Layer.IDENTITY, key="identity", text="You are a careful research agent. " * 60)]
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "context",
    "cache",
    "prefix",
    "token",
    "window",
    "budget",
    "group",
    "tool",
    "return",
    "call",
]


def big_text(seed: str, size: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(size // 6))[:size]


class Script:
    """The scripted model: a deterministic function of the turn and the step within it."""

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        prompt = next(
            p
            for m in reversed(messages)
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, UserPromptPart)
        )
        turn = int(str(prompt.content).split()[1])
        if any(isinstance(p, UserPromptPart) for p in last.parts) and turn % 5:
            calls = [ToolCallPart("search", {"q": f"t{turn}-a"}, f"c{turn}-a")]
            if turn % 3 == 0:
                calls.append(ToolCallPart("search", {"q": f"t{turn}-b"}, f"c{turn}-b"))  # parallel
            if turn % 7 == 0:
                calls = [ToolCallPart("flaky", {"q": f"t{turn}"}, f"c{turn}-f")]
            return ModelResponse(parts=calls)
        if any(isinstance(p, RetryPromptPart) for p in last.parts):
            return ModelResponse(parts=[ToolCallPart("flaky", {"q": f"t{turn}"}, f"c{turn}-g")])
        return ModelResponse(parts=[TextPart(big_text(f"answer{turn}", 300))])


def make_agent(recorder: Recorder, capabilities: list[Any], instructions: str | None = None) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(recorder), capabilities=capabilities, instructions=instructions)
    failed: set[str] = set()

    @agent.tool_plain
    def search(q: str) -> str:
        return big_text(q, 1_500 + (sum(map(ord, q)) * 37) % 4_500)

    @agent.tool_plain
    def flaky(q: str) -> str:
        if q not in failed:
            failed.add(q)
            raise ModelRetry("the source timed out; try again")
        return big_text(q, 2_000)

    return agent


@dataclass
class Recorder:
    """Records each request as (message texts, instruction text) inside the model."""

    requests: list[tuple[tuple[str, ...], str]] = field(default_factory=list)
    _texts: dict[int, tuple[object, str]] = field(default_factory=dict)
    script: Script = field(default_factory=Script)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests.append((tuple(self._text(m) for m in messages), info.instructions or ""))
        return self.script(messages, info)

    def _text(self, message: ModelMessage) -> str:
        found = self._texts.get(id(message))
        if found is not None and found[0] is message:
            return found[1]
        wire = ModelMessagesTypeAdapter.dump_python([message], mode="json")[0]
        wire.pop("instructions", None)
        text = json.dumps(wire, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        self._texts[id(message)] = (message, text)
        return text


def compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class LangChainTrim(AbstractCapability[Any]):
    """LangChain ``trim_messages`` over the same wire messages, request-only, the same cap and cost."""

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        messages = request_context.messages
        split: list[dict[str, Any]] = []  # LangChain holds one part per request message: split them
        owners: list[int] = []
        for index, message in enumerate(to_wire(messages)):
            message.pop("instructions", None)
            parts = message["parts"] if message["kind"] == "request" else [message["parts"]]
            for part in parts:
                split.append({**message, "parts": [part] if message["kind"] == "request" else part})
                owners.append(index)
        converted = from_wire(split)
        chars = {id(m): len(compact(w)) for m, w in zip(converted, split, strict=True)}
        room = CAP - len(FLOOR[0].text)

        def counter(batch: list[BaseMessage]) -> int:
            return sum(chars[id(m)] for m in batch)

        kept = trim_messages(
            converted, max_tokens=room, token_counter=counter, strategy="last", start_on="human", allow_partial=False
        )
        first = len(split) - len(kept)
        start = owners[first] if first < len(owners) else len(messages)
        if first > 0 and first < len(owners) and owners[first - 1] == start:
            start += 1  # a message LangChain cut in two is not sent
        request_context.messages = messages[start:]
        return request_context


def run(name: str, turns: int) -> Recorder:
    recorder = Recorder()
    if name in ("chunked", "cost", "newest"):
        trim = {
            "chunked": HistoryConfig(trim="chunked", low_water=60),
            "cost": HistoryConfig(trim="cost", cache_write=1250, cache_read=100, cache_lifetime=LIFETIME),
            "newest": HistoryConfig(),
        }[name]
        agent = make_agent(recorder, [GovernedContext(floor=FLOOR, governors=GOVERNORS, history=trim)])
    else:
        agent = make_agent(recorder, [LangChainTrim()] if name == "langchain" else [], FLOOR[0].text)
    history: list[ModelMessage] = []
    for turn in range(turns):
        history = asyncio.run(agent.run(f"turn {turn} what next?", message_history=history)).all_messages()
    return recorder


# --- the simulated prefix caches -------------------------------------------------------


@dataclass(frozen=True)
class Style:
    name: str
    write: float
    read: float
    block: int  # reads in whole blocks of this many tokens
    minimum: int  # no read below this many tokens


ANTHROPIC = Style("anthropic", 1.25, 0.1, 1, 0)
OPENAI = Style("openai", 1.0, 0.1, 128, 1_024)
COUNTER = TiktokenCounter("o200k_base")
_tokens: dict[str, int] = {}


def tokens_of(text: str) -> int:
    found = _tokens.get(text)
    if found is None:
        found = _tokens[text] = COUNTER.count(text, NoOptions())
    return found


@dataclass
class Tally:
    cost: float = 0.0
    input_tokens: int = 0
    read_tokens: int = 0


def simulate(requests: list[tuple[tuple[str, ...], str]], style: Style) -> Tally:
    """Each request reads the longest live cached prefix (whole messages) and writes itself."""
    live: dict[tuple[str, ...], int] = {}  # cached prefix -> index of its last use
    tally = Tally()
    for index, (texts, instructions) in enumerate(requests):
        key = (instructions, *texts)
        sizes = [tokens_of(part) for part in key]
        live = {prefix: used for prefix, used in live.items() if index - used <= LIFETIME}
        best = max((p for p in live if len(p) <= len(key) and key[: len(p)] == p), key=len, default=())
        if best:
            live[best] = index
        read = sum(sizes[: len(best)])
        read = read // style.block * style.block if read >= style.minimum else 0
        total = sum(sizes)
        live[key] = index
        tally.cost += read * style.read + (total - read) * style.write
        tally.input_tokens += total
        tally.read_tokens += read
    return tally


def orphans(texts: tuple[str, ...]) -> int:
    """Tool returns sent without their call, and settled calls sent without their return."""
    calls, returns = set(), set()
    for text in texts:
        for part in json.loads(text)["parts"]:
            if part["part_kind"] == "tool-call":
                calls.add(part["tool_call_id"])
            elif part["part_kind"] in ("tool-return", "retry-prompt") and part.get("tool_call_id"):
                returns.add(part["tool_call_id"])
    last = json.loads(texts[-1]) if texts else {"kind": "request"}
    pending = set() if last["kind"] == "request" else {p.get("tool_call_id") for p in last["parts"]}
    return len(returns - calls) + len(calls - returns - pending)


def report(turns: int) -> None:
    names = ("chunked", "cost", "newest", "langchain", "notrim")
    recorded = {name: run(name, turns) for name in names}
    rows: dict[str, dict[str, float]] = {}
    for name in names:
        requests = recorded[name].requests
        anthropic, openai = simulate(requests, ANTHROPIC), simulate(requests, OPENAI)
        rows[name] = {
            "requests": len(requests),
            "anthropic_cost": anthropic.cost,
            "anthropic_per_token": anthropic.cost / anthropic.input_tokens,
            "openai_cost": openai.cost,
            "openai_per_token": openai.cost / openai.input_tokens,
            "read_share": anthropic.read_tokens / anthropic.input_tokens,
            "mean_context": anthropic.input_tokens / len(requests),
            "orphans": sum(orphans(texts) for texts, _ in requests),
            "over_cap": sum(sum(map(len, texts)) + len(instr) > CAP for texts, instr in requests),
        }
    print(
        f"cache economics: {turns} turns, cap {CAP} characters, turn window {GOVERNORS.turn_window}, "
        f"lifetime {LIFETIME}"
    )
    print(
        f"{'':10} {'requests':>8} {'anthr cost':>11} {'/token':>7} {'openai cost':>11} {'/token':>7} "
        f"{'read':>6} {'mean ctx':>9} {'orphans':>7} {'>cap':>5}"
    )
    for name, row in rows.items():
        print(
            f"{name:10} {row['requests']:8.0f} {row['anthropic_cost']:11.0f} {row['anthropic_per_token']:7.3f} "
            f"{row['openai_cost']:11.0f} {row['openai_per_token']:7.3f} {row['read_share']:6.3f} "
            f"{row['mean_context']:9.0f} {row['orphans']:7.0f} {row['over_cap']:5.0f}"
        )
    newest = rows["newest"]
    for name in ("chunked", "cost"):
        row = rows[name]
        print(
            f"{name} / newest: anthropic cost {row['anthropic_cost'] / newest['anthropic_cost']:.3f} (goal <= 0.4), "
            f"openai cost {row['openai_cost'] / newest['openai_cost']:.3f}, mean context "
            f"{row['mean_context'] / newest['mean_context']:.3f} (goal >= 0.75); {name} read share "
            f"{row['read_share']:.3f} (goal >= 0.85)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=300)
    report(parser.parse_args().turns)


if __name__ == "__main__":
    main()
