"""The Pydantic AI adapter's per-request cost vs a minimal outbound-only trimmer, in one run.

A real ``Agent`` on a ``FunctionModel`` answers one prompt on top of a tool-using
history of 300 and 1,000 turns (user prompt, tool call, tool return, answer; about 200
characters a message). Three agents, identical but for one capability:

* ``bare`` — no capability: the model sees the whole history (for reference);
* ``trimmer`` — the minimal outbound-only trimmer: ``before_model_request`` keeps the
  last ``4 x turn window`` messages of ``request_context.messages`` (no validation, no
  measuring, no grouping);
* ``governed`` — ``GovernedContext`` with the same turn window (20 groups) and a
  character cap that the turn window reaches first. Request after request the settled
  messages are the same objects, so it converts only the new tail (its memo is warm);
* ``cold`` — the same agent, but every request gets a fresh shallow copy of each history
  message (new objects, copied outside the timer), so nothing is memoized: the cost of
  the first request over a history the capability has never seen.

The figure is the per-request CPU time of this process (one ``agent.run`` with one
model request, best of N; CPU time because the machine is shared) of ``governed`` over
``trimmer`` at each history length (goal <= 1.2 at both), and ``governed`` minus
``trimmer`` at both lengths (goal: flat). ``cold`` is reported beside them.

Run: python benchmarks/bench_pydantic_ai.py [--full]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.models.function import AgentInfo, FunctionModel

from lychd_core.config import Governors
from lychd_core.integrations import GovernedContext

TURN_WINDOW = 20
GOVERNORS = Governors(turn_window=TURN_WINDOW, char_cap=400_000, chars_per_token=3)


class Trimmer(AbstractCapability[Any]):
    """The minimal outbound-only trimmer: the last messages, request-only, nothing checked."""

    def __init__(self, keep: int) -> None:
        self.keep = keep

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        request_context.messages = request_context.messages[-self.keep :]
        return request_context


class TimedGoverned(GovernedContext[None]):
    """``GovernedContext`` recording the CPU time of its own hook: the capability's cost alone."""

    def __init__(self, **fields: Any) -> None:
        super().__init__(**fields)
        self.spent: list[float] = []

    async def before_model_request(
        self, ctx: RunContext[None], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        start = time.process_time()
        try:
            return await super().before_model_request(ctx, request_context)
        finally:
            self.spent.append(time.process_time() - start)


def history(turns: int) -> list[ModelMessage]:
    pad = "lorem ipsum dolor " * 8
    messages: list[ModelMessage] = []
    for turn in range(turns):
        call = f"call-{turn}"
        messages += [
            ModelRequest(parts=[UserPromptPart(f"turn {turn}: {pad}")]),
            ModelResponse(parts=[ToolCallPart("lookup", {"q": pad}, call)]),
            ModelRequest(parts=[ToolReturnPart("lookup", pad, call)]),
            ModelResponse(parts=[TextPart(f"answer {turn}: {pad}")]),
        ]
    return messages


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(f"seen {len(messages)}")])


def agents() -> dict[str, Agent[None, str]]:
    model = FunctionModel(answer)
    return {
        "bare": Agent(model),
        "trimmer": Agent(model, capabilities=[Trimmer(4 * TURN_WINDOW + 1)]),
        "governed": Agent(model, capabilities=[GovernedContext(governors=GOVERNORS)]),
    }


async def per_request(agent: Agent[None, str], past: list[ModelMessage], repeats: int, cold: bool = False) -> float:
    best = float("inf")
    for _ in range(repeats):
        sent = [copy.copy(message) for message in past] if cold else past  # new objects: nothing memoized
        start = time.process_time()  # CPU time: the machine is shared, wall time wanders with its load
        await agent.run("next question", message_history=sent)
        best = min(best, time.process_time() - start)
    return best


async def main(full: bool) -> None:
    repeats = 60 if full else 15
    rounds = 5 if full else 3
    sizes = (300, 1_000)
    pasts = {turns: history(turns) for turns in sizes}
    contenders = agents()
    for agent in contenders.values():  # warm every path once
        await agent.run("warm up", message_history=pasts[300])
    times: dict[tuple[str, int], float] = {}
    for _ in range(rounds):  # interleave the sides so drift on a shared machine hits all alike
        for turns in sizes:
            for name, agent in contenders.items():
                t = await per_request(agent, pasts[turns], repeats)
                times[name, turns] = min(times.get((name, turns), float("inf")), t)
            t = await per_request(contenders["governed"], pasts[turns], repeats, cold=True)
            times["cold", turns] = min(times.get(("cold", turns), float("inf")), t)
    print(f"# per-request CPU time, best of {rounds} x {repeats} (one agent.run, one model request)")
    header = f"{'turns':>6} {'bare':>10} {'trimmer':>10} {'governed':>10} {'cold':>10}"
    print(f"{header} {'governed/trimmer':>17} {'cold/trimmer':>13}")
    for turns in sizes:
        b, t, g, c = (times[name, turns] * 1e3 for name in ("bare", "trimmer", "governed", "cold"))
        print(f"{turns:>6} {b:>8.3f}ms {t:>8.3f}ms {g:>8.3f}ms {c:>8.3f}ms {g / t:>17.2f} {c / t:>13.2f}")
    extra = {n: (times["governed", n] - times["trimmer", n]) * 1e3 for n in sizes}
    print(f"governed - trimmer: {extra[300]:.2f}ms at 300 turns, {extra[1_000]:.2f}ms at 1000 (goal: flat)")
    worst = max(times["governed", n] / times["trimmer", n] for n in sizes)
    print(f"governed / trimmer, worst of both lengths: {worst:.2f} (goal <= 1.2)")
    hook = TimedGoverned(governors=GOVERNORS)  # a separate pass: the hook alone, warm memo
    timed = Agent(FunctionModel(answer), capabilities=[hook])
    spent = {}
    for turns in sizes:
        await timed.run("warm up", message_history=pasts[turns])
        hook.spent.clear()
        for _ in range(repeats * rounds):
            await timed.run("next question", message_history=pasts[turns])
        spent[turns] = sorted(hook.spent)[len(hook.spent) // 2] * 1e3
    print(f"the capability's hook alone (median): {spent[300]:.2f}ms at 300 turns, {spent[1_000]:.2f}ms at 1000")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="more repeats (the figures in docs/performance.md)")
    asyncio.run(main(parser.parse_args().full))
