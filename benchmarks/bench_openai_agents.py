"""The OpenAI Agents SDK adapter's per-call cost vs the SDK's own trimmers, in one run.

A tool-using history of 300 and 1,000 turns (user message, reasoning, function call,
function call output, assistant message; about 110 characters of text an item) as input
items. Per model call:

* ``limit`` — the minimal outbound-only trimmer: a ``call_model_input_filter`` keeping
  the last ``5 x 20`` items (what ``SessionSettings(limit=100)`` loads from a session;
  nothing checked);
* ``tool-trimmer`` — the SDK's ``ToolOutputTrimmer`` (``recent_turns=20``), which walks
  every item and trims older tool outputs (it bounds nothing, for reference);
* ``governed`` — ``GovernedInputFilter`` (the one outbound engine) with a turn window of
  20 exchanges, spans off; ``spans`` — the same with an SDK tracer recording into memory.

Figures: CPU time of this process (the machine is shared), best of N, of the filter call
alone and of one whole ``Runner.run`` (a fake ``Model`` answering once); ratios
``governed / limit`` (goal <= 1.2, flat) and ``spans / governed`` (goal <= 1.05).

Run: python benchmarks/bench_openai_agents.py [--full]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage, set_tracing_disabled
from agents.extensions import ToolOutputTrimmer
from agents.run_config import CallModelData, ModelInputData
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

from benchmarks.span_tracers import TRACERS, use_tracer
from lychd_core.config import Governors
from lychd_core.integrations.openai_agents import GovernedInputFilter

set_tracing_disabled(True)
TURNS_KEPT = 20
GOVERNORS = Governors(turn_window=TURNS_KEPT, char_cap=400_000, chars_per_token=3)
PAD = "lorem ipsum dolor " * 6


def history(turns: int) -> list[Any]:
    items: list[Any] = []
    for turn in range(turns):
        call = f"call-{turn}"
        items += [
            {"role": "user", "content": f"turn {turn}: {PAD}"},
            {"type": "reasoning", "id": f"rs_{turn}", "summary": []},
            {"type": "function_call", "call_id": call, "name": "lookup", "arguments": f'{{"q": "{PAD}"}}'},
            {"type": "function_call_output", "call_id": call, "output": PAD},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": PAD}]},
        ]
    return items


def limit(data: CallModelData[Any]) -> ModelInputData:
    return ModelInputData(input=data.model_data.input[-5 * TURNS_KEPT - 1 :], instructions=data.model_data.instructions)


class Answering(Model):
    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        content = [ResponseOutputText(annotations=[], text="ok", type="output_text")]
        message = ResponseOutputMessage(id="m", content=content, role="assistant", status="completed", type="message")
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


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
    pasts = {n: [*history(n), {"role": "user", "content": "next question"}] for n in sizes}
    filters: dict[str, Callable[[CallModelData[Any]], ModelInputData]] = {
        "limit": limit,
        "tool-trimmer": ToolOutputTrimmer(recent_turns=TURNS_KEPT),
        "governed": GovernedInputFilter(governors=GOVERNORS),
    }
    agent = Agent(name="bench", instructions="You help.", model=Answering())
    times: dict[tuple[str, str, int], float] = {}

    def note(key: tuple[str, str, int], value: float) -> None:
        times[key] = min(times.get(key, float("inf")), value)

    def data(n: int) -> CallModelData[Any]:
        return CallModelData(
            model_data=ModelInputData(input=list(pasts[n]), instructions="You help."), agent=agent, context=None
        )

    for _ in range(rounds):  # interleaved, so drift on a shared machine hits every side alike
        for n in sizes:
            call = data(n)
            for name, filter_ in filters.items():
                if name == "governed":
                    for tracer in TRACERS:
                        with use_tracer(tracer):
                            note(("filter", tracer, n), best(lambda f=filter_, call=call: f(call), repeats))
                else:
                    note(("filter", name, n), best(lambda f=filter_, call=call: f(call), repeats))
                config = RunConfig(call_model_input_filter=filter_)
                run = lambda config=config, n=n: asyncio.run(Runner.run(agent, pasts[n], run_config=config))  # noqa: E731
                note(("run", name, n), best(run, max(2, repeats // 8)))
    print(f"# per-call CPU time, best of {rounds} x {repeats}")
    header = f"{'items':>6} {'limit':>10} {'tool-trim':>10} {'governed':>10} {'spans':>10}"
    print(f"{header} {'governed/limit':>15} {'governed/tool-trim':>19}")
    for n in sizes:
        lim, tt, g, s = (times["filter", k, n] * 1e3 for k in ("limit", "tool-trimmer", "off", "sdk"))
        row = f"{5 * n:>6} {lim:>8.3f}ms {tt:>8.3f}ms {g:>8.3f}ms {s:>8.3f}ms"
        print(f"{row} {'':>15} {g / tt:>19.2f}   (filter call alone)")
    for n in sizes:
        lim, tt, g = (times["run", k, n] * 1e3 for k in ("limit", "tool-trimmer", "governed"))
        print(f"{5 * n:>6} {lim:>8.3f}ms {tt:>8.3f}ms {g:>8.3f}ms {'':>10} {g / lim:>15.2f} {g / tt:>19.2f}   (run)")
    for n in sizes:
        extra = times["filter", "sdk", n] - times["filter", "off", n]
        api = times["filter", "api", n] - times["filter", "off", n]
        share = 100 * extra / times["run", "governed", n]
        print(
            f"spans at {5 * n} items: +{extra * 1e3:.3f}ms recorded ({share:.1f}% of a Runner.run), "
            f"{api * 1e3:+.3f}ms with the API and no SDK"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="more repeats (the figures in docs/performance.md)")
    main(parser.parse_args().full)
