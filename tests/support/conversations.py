"""Synthetic conversations in the Pydantic AI wire form, for tests and benchmarks."""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]


def user(text: str, run_id: str | None = None) -> Message:
    return {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": text}], "run_id": run_id}


def tool_call(name: str, call_id: str, run_id: str | None = None) -> Message:
    part = {"part_kind": "tool-call", "tool_name": name, "args": {"q": call_id}, "tool_call_id": call_id}
    return {"kind": "response", "parts": [part], "run_id": run_id}


def tool_return(name: str, call_id: str, content: str, run_id: str | None = None) -> Message:
    part = {"part_kind": "tool-return", "tool_name": name, "content": content, "tool_call_id": call_id}
    return {"kind": "request", "parts": [part], "run_id": run_id}


def retry(name: str, call_id: str, run_id: str | None = None) -> Message:
    part = {"part_kind": "retry-prompt", "tool_name": name, "content": "try again", "tool_call_id": call_id}
    return {"kind": "request", "parts": [part], "run_id": run_id}


def answer(text: str, run_id: str | None = None) -> Message:
    return {"kind": "response", "parts": [{"part_kind": "text", "content": text}], "run_id": run_id}


def turn(index: int, *, tools: int = 1, pad: int = 0, run_ids: bool = False) -> list[Message]:
    """One complete exchange: a prompt, ``tools`` tool round trips, and an answer."""
    run_id = f"run-{index}" if run_ids else None
    filler = "x" * pad
    messages = [user(f"question {index} {filler}", run_id)]
    for t in range(tools):
        call_id = f"c{index}-{t}"
        messages += [tool_call("search", call_id, run_id), tool_return("search", call_id, f"result {filler}", run_id)]
    messages.append(answer(f"answer {index} {filler}", run_id))
    return messages


def conversation(turns: int, *, tools: int = 1, pad: int = 0, run_ids: bool = False) -> list[Message]:
    messages: list[Message] = []
    for index in range(turns):
        messages += turn(index, tools=tools, pad=pad, run_ids=run_ids)
    return messages
