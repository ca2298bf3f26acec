"""Sample nodes each compressor compresses, for contract tests (the core's and a caller's)."""

from __future__ import annotations

from lychd_core.compression.messages import join_messages
from lychd_core.graph import ContextNode, TokenBudget
from lychd_core.history import Message
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement, Trust

PYTHON = '''"""A module with bodies worth eliding."""

import os


class Greeter:
    """Greets people."""

    def greet(self, name: str) -> str:
        prefix = os.environ.get("GREETING", "hello")
        words = [prefix, name]
        return " ".join(words)


def main(argv: list[str]) -> int:
    greeter = Greeter()
    for name in argv:
        print(greeter.greet(name))
    return 0
'''


def exchange(index: int, body_chars: int) -> list[Message]:
    """One user request, a tool call, its (large) return and an answer."""
    call = f"call-{index}"
    tool_call = {"part_kind": "tool-call", "tool_name": "read_file", "tool_call_id": call, "args": {"n": index}}
    tool_return = {
        "part_kind": "tool-return",
        "tool_name": "read_file",
        "tool_call_id": call,
        "content": "z" * body_chars,
    }
    return [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": f"please read file {index}"}]},
        {"kind": "response", "parts": [tool_call]},
        {"kind": "request", "parts": [tool_return]},
        {"kind": "response", "parts": [{"part_kind": "text", "content": f"file {index} read"}]},
    ]


def history_node(index: int, body_chars: int, newer: int | None) -> ContextNode:
    text = join_messages(exchange(index, body_chars))
    return ContextNode.create(
        id=f"history:{index:09d}",
        content=text,
        provenance=Provenance.AGENT,
        authority=Authority.NON_AUTHORITATIVE,
        trust=Trust.CONSTRAINED,
        context_class=ContextClass.HISTORY,
        requirement=Requirement.OPTIONAL,
        token_estimate=-(-len(text) // 3),
        recency=index,
        dependencies=() if newer is None else (f"history:{newer:09d}",),
    )


def history_chain(groups: int, body_chars: int) -> tuple[ContextNode, ...]:
    return tuple(history_node(i, body_chars, i + 1 if i + 1 < groups else None) for i in range(groups))


def python_source() -> ContextNode:
    return ContextNode.create(
        id="L2:codex:greeter.py",
        content=PYTHON,
        provenance=Provenance.REPOSITORY,
        authority=Authority.NON_AUTHORITATIVE,
        trust=Trust.TRUSTED,
        context_class=ContextClass.SOURCE,
        requirement=Requirement.OPTIONAL,
        token_estimate=-(-len(PYTHON) // 3),
    )


SAMPLE_NODES: dict[str, tuple[ContextNode, ...]] = {
    "compress.tool-output-elision": history_chain(2, 6_000),
    "compress.verbatim-to-structure": (python_source(),),
    "compress.history-prefix-digest": history_chain(6, 300),
}
SAMPLE_BUDGETS: dict[str, TokenBudget] = {
    "compress.history-prefix-digest": TokenBudget(window=400, reserved_output=1),
}
"""Budgets under which the plan leaves sample history out (the digest's sources)."""
