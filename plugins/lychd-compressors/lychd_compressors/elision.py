"""``compress.tool-output-elision`` revision 2: large settled tool returns keep a bounded head.

Each history group whose tool returns are larger than ``min_chars`` becomes one derived
group: same messages, same call/return pairing, each large return's body cut to its first
``head_chars`` characters plus a digest-bound reference to the full body, and a declared
omission per elided body. The reference names the body's place in the source group
(message and part) and the group's digest, which binds it: the body is not hashed again
(revision 1 hashed each body on its own). Unchanged messages keep their exact text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from lychd_compressors.proposal import whole_sources_proposal
from lychd_core.blocks import Omission
from lychd_core.compression.memo import BoundedMemo
from lychd_core.compression.messages import split_messages
from lychd_core.errors import HistoryError
from lychd_core.families import CompactionProposal, CompactionRequest, CompactionSource
from lychd_core.history import Message, compact_json
from lychd_core.vocabulary import ContextClass

MEMO_ENTRIES = 4_096
"""Proposals remembered per compressor instance: a long conversation's settled groups."""


class ToolOutputElisionOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min_chars: int = Field(
        default=2_000, gt=0, strict=True, description="Tool return bodies longer than this are elided.", examples=[2000]
    )
    head_chars: int = Field(
        default=400, ge=0, strict=True, description="Characters of each elided body kept verbatim.", examples=[400]
    )


class ToolOutputElision:
    name: ClassVar[str] = "compress.tool-output-elision"
    revision: ClassVar[int] = 2
    options_model: ClassVar[type[BaseModel]] = ToolOutputElisionOptions
    preserves_trust: ClassVar[bool] = True
    """What it keeps is verbatim; what it drops is declared and digest-bound."""

    def __init__(self) -> None:
        self._memo: BoundedMemo[tuple[object, ...], tuple[CompactionProposal, ...]] = BoundedMemo(MEMO_ENTRIES)

    def forget(self) -> None:
        """Drop every remembered proposal (the next call elides every group anew)."""
        self._memo.clear()

    def propose(self, request: CompactionRequest, options: BaseModel) -> tuple[CompactionProposal, ...]:
        if not isinstance(options, ToolOutputElisionOptions):
            options = ToolOutputElisionOptions.model_validate(options.model_dump())
        proposals: list[CompactionProposal] = []
        for source in request.sources:
            if source.context_class is not ContextClass.HISTORY:
                continue
            # The proposal depends only on these (a source's content is bound by its digest),
            # so a settled group, offered again at the next model call, is not elided again.
            key = (source.digest, source.node_id, request.policy.digest, request.max_chars, options)
            found = self._memo.get(key)
            if found is None:
                proposal = self._elide(request, source, options)
                found = () if proposal is None else (proposal,)
                self._memo.put(key, found)
            proposals += found
        return tuple(proposals)

    def _elide(
        self, request: CompactionRequest, source: CompactionSource, options: ToolOutputElisionOptions
    ) -> CompactionProposal | None:
        messages: Sequence[Message] | None = source.messages
        texts = source.message_texts
        if messages is None:
            try:
                messages = split_messages(source.content, source.node_id, check=False)  # the core checks the result
            except HistoryError:
                return None  # not messages: nothing this compressor understands
            texts = None
        omissions: list[Omission] = []
        pieces = []
        for index, message in enumerate(messages):
            elided = _elide_message(message, options, omissions, source, index)
            pieces.append(texts[index] if elided is message and texts is not None else compact_json(elided))
        if not omissions:
            return None
        content = "".join(pieces)
        if len(content) > request.max_chars or len(content) >= len(source.content):
            return None
        return whole_sources_proposal(
            request,
            f"elided:{source.node_id}",
            content,
            [source],
            ("tool call/return pairs intact", "message order and kinds unchanged", "kept heads verbatim"),
            tuple(omissions),
        )


def _elide_message(
    message: Message, options: ToolOutputElisionOptions, omissions: list[Omission], source: CompactionSource, index: int
) -> Message:
    """``message`` itself when nothing in it is elided, else a new message (never edited in place)."""
    if message.get("kind") != "request":
        return message
    parts = message["parts"]
    cut: list[dict[str, Any]] | None = None
    for number, part in enumerate(parts):
        if part.get("part_kind") != "tool-return":
            continue

        def place(number: int = number) -> str:
            return f"message {index} part {number} of {source.node_id} ({source.digest})"

        new = _elide_part(part, options, omissions, place)
        if new is not part:
            cut = list(parts) if cut is None else cut
            cut[number] = new
    return message if cut is None else {**message, "parts": cut}


def _elide_part(
    part: dict[str, Any], options: ToolOutputElisionOptions, omissions: list[Omission], place: Callable[[], str]
) -> dict[str, Any]:
    body = part.get("content")
    text = body if isinstance(body, str) else compact_json(body)
    if len(text) <= options.min_chars:
        return part
    where = place()  # spelled only for a body it elides
    tool = str(part.get("tool_name", "?"))
    head = text[: options.head_chars]
    elided = f"elided {len(text) - len(head)} of {len(text)} characters of the {tool!r} return"
    note = f"[lychd: {elided}; full body: {where}]"
    omissions.append(
        Omission(
            kind="elided-tool-output",
            reason=f"{tool} return {part.get('tool_call_id', '?')}: characters {len(head)}-{len(text)} of {where}",
        )
    )
    return {**part, "content": f"{head}\n{note}"}


TOOL_OUTPUT_ELISION = ToolOutputElision()
