"""The LangChain adapter's per-request cost vs LangChain's own ``trim_messages``, in one run.

A tool-using history of 300 and 1,000 turns (question, tool call, tool return, answer;
about 110 characters of text a message) as LangChain messages. Per model request:

* ``trim`` — ``trim_messages(strategy="last", token_counter="approximate",
  start_on="human", include_system=True)`` with ``max_tokens`` set to what the last 20
  turns need, the framework's documented trimmer, in a ``wrap_model_call`` middleware;
* ``governed`` — ``GovernedMiddleware`` (the one outbound engine: wire conversion,
  grouping, tool pairing, selector, egress gate) with a turn window of 20 groups,
  spans off (no OpenTelemetry tracer);
* ``spans`` — the same with an OpenTelemetry SDK tracer recording into memory.

Figures: CPU time of this process (the machine is shared), best of N, of the bounding
call alone (the middleware's work on ``request.messages``) and of one whole
``create_agent`` request (``agent.invoke`` answered by LangChain's fake chat model, one
model call); ratios ``governed / trim`` (goal <= 1.2 at both lengths, and flat) and
``spans / governed`` (goal <= 1.05).

Run: python benchmarks/bench_langchain.py [--full]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately

from benchmarks.span_tracers import TRACERS, use_tracer
from lychd_core.config import Governors
from lychd_core.integrations.langchain import GovernedMessages, GovernedMiddleware

TURNS_KEPT = 20
GOVERNORS = Governors(turn_window=TURNS_KEPT, char_cap=400_000, chars_per_token=3)
PAD = "lorem ipsum dolor " * 6


def history(turns: int) -> list[BaseMessage]:
    messages: list[BaseMessage] = []
    for turn in range(turns):
        call = f"call-{turn}"
        messages += [
            HumanMessage(f"turn {turn}: {PAD}"),
            AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": PAD}, "id": call}]),
            ToolMessage(PAD, tool_call_id=call, name="lookup"),
            AIMessage(f"answer {turn}: {PAD}"),
        ]
    return messages


class Trim(AgentMiddleware):
    """LangChain's own trimmer as an outbound-only middleware."""

    def __init__(self, max_tokens: int) -> None:
        super().__init__()
        self.max_tokens = max_tokens

    def trim(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        return trim_messages(
            messages,
            max_tokens=self.max_tokens,
            token_counter="approximate",
            strategy="last",
            start_on="human",
            include_system=True,
        )

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(request.override(messages=self.trim(request.messages)))


class Fake(GenericFakeChatModel):
    """LangChain's fake chat model, answering "ok" to every request."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Fake:
        return self


def fake() -> Fake:
    return Fake(messages=itertools.repeat(AIMessage("ok")))


def best(run: Callable[[], object], repeats: int) -> float:
    fastest = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        fastest = min(fastest, time.process_time() - start)
    return fastest


def main(full: bool) -> None:
    repeats, rounds = (40, 5) if full else (8, 2)
    sizes = (300, 1_000)
    pasts = {n: history(n) for n in sizes}
    budget = count_tokens_approximately(pasts[300][-4 * TURNS_KEPT - 1 :])
    trim = Trim(budget)
    governed = GovernedMessages(governors=GOVERNORS)
    kept = {n: (len(trim.trim(pasts[n])), len(governed.messages(pasts[n]))) for n in sizes}
    agents = {
        "trim": create_agent(fake(), middleware=[trim]),
        "governed": create_agent(fake(), middleware=[GovernedMiddleware(governors=GOVERNORS)]),
    }
    times: dict[tuple[str, str, int], float] = {}

    def note(key: tuple[str, str, int], value: float) -> None:
        times[key] = min(times.get(key, float("inf")), value)

    for _ in range(rounds):  # interleaved, so drift on a shared machine hits every side alike
        for n in sizes:
            past = [*pasts[n], HumanMessage("next question")]
            note(("hook", "trim", n), best(lambda past=past: trim.trim(past), repeats))
            for tracer in TRACERS:
                with use_tracer(tracer):
                    note(("hook", tracer, n), best(lambda past=past: governed.messages(past), repeats))
            for name, agent in agents.items():
                note(
                    ("agent", name, n),
                    best(lambda agent=agent, past=past: agent.invoke({"messages": past}), repeats // 4),
                )
    print(f"# per-request CPU time, best of {rounds} x {repeats}; kept messages (trim, governed): {kept}")
    print(f"{'turns':>6} {'trim':>10} {'governed':>10} {'spans':>10} {'governed/trim':>14} {'spans/governed':>15}")
    for n in sizes:
        t, g, s = (times["hook", k, n] * 1e3 for k in ("trim", "off", "sdk"))
        print(f"{n:>6} {t:>8.3f}ms {g:>8.3f}ms {s:>8.3f}ms {g / t:>14.2f} {s / g:>15.2f}   (bounding call)")
    for n in sizes:
        t, g = (times["agent", k, n] * 1e3 for k in ("trim", "governed"))
        print(f"{n:>6} {t:>8.3f}ms {g:>8.3f}ms {'':>10} {g / t:>14.2f} {'':>15}   (one create_agent request)")
    for n in sizes:
        extra = times["hook", "sdk", n] - times["hook", "off", n]
        api = times["hook", "api", n] - times["hook", "off", n]
        share = 100 * extra / times["agent", "governed", n]
        print(
            f"spans at {n} turns: +{extra * 1e3:.3f}ms recorded ({share:.1f}% of a create_agent request), "
            f"{api * 1e3:+.3f}ms with the API and no SDK"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="more repeats (the figures in docs/performance.md)")
    main(parser.parse_args().full)
