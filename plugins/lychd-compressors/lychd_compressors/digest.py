"""``compress.history-prefix-digest`` revision 1: one attributed node for dropped history.

The oldest settled groups that the governors would drop (history sources the plan leaves
out for lack of room) are replaced by one "earlier in this conversation" request: for
each group, its user request (truncated, declared), the tools it called and its digest,
so the model knows what it no longer sees. Groups that do not fit the bound, and older
messages that never became nodes, are declared omissions.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from lychd_compressors.proposal import whole_sources_proposal
from lychd_core.blocks import Omission
from lychd_core.compression.messages import split_messages
from lychd_core.errors import HistoryError
from lychd_core.families import CompactionProposal, CompactionRequest, CompactionSource
from lychd_core.history import Message, compact_json
from lychd_core.vocabulary import ContextClass

OUTPUT_ID = "digest:history-prefix"


class HistoryPrefixDigestOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    request_chars: int = Field(
        default=120, ge=0, strict=True, description="Characters kept of each user request.", examples=[120]
    )


class HistoryPrefixDigest:
    name: ClassVar[str] = "compress.history-prefix-digest"
    revision: ClassVar[int] = 1
    options_model: ClassVar[type[BaseModel]] = HistoryPrefixDigestOptions
    preserves_trust: ClassVar[bool] = False
    """It lists and truncates; the model must not rely on it as the exchanges themselves."""

    def propose(self, request: CompactionRequest, options: BaseModel) -> tuple[CompactionProposal, ...]:
        if not isinstance(options, HistoryPrefixDigestOptions):
            options = HistoryPrefixDigestOptions.model_validate(options.model_dump())
        keep = options.request_chars
        dropped = sorted(
            (s for s in request.sources if s.context_class is ContextClass.HISTORY and s.omitted),
            key=lambda s: (s.recency, s.node_id),
        )
        lines: list[tuple[CompactionSource, str]] = []
        for source in dropped:
            try:
                messages = split_messages(source.content, source.node_id)
            except HistoryError:
                return ()  # a prefix it cannot read whole is not summarized in part
            lines.append((source, _line(source, messages, keep)))
        if not lines:
            return ()
        return _fit(request, lines, keep)


def _line(source: CompactionSource, messages: list[Message], keep: int) -> str:
    asked = " ".join(
        str(part.get("content"))
        for message in messages
        if message.get("kind") == "request"
        for part in message["parts"]
        if part.get("part_kind") == "user-prompt"
    )
    tools = sorted(
        {
            str(part.get("tool_name"))
            for message in messages
            for part in message["parts"]
            if part.get("part_kind") == "tool-call"
        }
    )
    shown = asked[:keep] + (f" [... {len(asked) - keep} more characters]" if len(asked) > keep else "")
    named = ", ".join(tools) or "none"
    return f"- {len(messages)} messages; asked: {shown or '(no user request)'}; tools: {named}; {source.digest}"


def _fit(
    request: CompactionRequest, lines: list[tuple[CompactionSource, str]], keep: int
) -> tuple[CompactionProposal, ...]:
    total = len(lines)
    while lines:
        omissions = [Omission(kind="truncated-request", reason=f"user requests beyond {keep} characters")]
        if len(lines) < total:
            omissions.append(
                Omission(kind="unlisted-groups", reason=f"{total - len(lines)} older dropped exchanges not listed")
            )
        if request.older_unseen:
            omissions.append(
                Omission(kind="unseen-history", reason=f"{request.older_unseen} older messages were never offered")
            )
        header = (
            f"[lychd: earlier in this conversation, {total} settled exchanges are not shown"
            f"{f' and {request.older_unseen} older messages were never offered' if request.older_unseen else ''}; "
            "a derived, non-authoritative digest, oldest first]"
        )
        text = "\n".join([header, *(line for _, line in lines)])
        content = compact_json({"kind": "request", "parts": [{"part_kind": "user-prompt", "content": text}]})
        if len(content) <= request.max_chars:
            return (
                whole_sources_proposal(
                    request,
                    OUTPUT_ID,
                    content,
                    [source for source, _ in lines],
                    ("tool names and group digests exact", "oldest first"),
                    tuple(omissions),
                    ContextClass.COMPACTION,  # a summary of several groups, not a group of its own
                ),
            )
        lines = lines[1:]  # list the newest dropped groups that fit; the rest are declared
    return ()


HISTORY_PREFIX_DIGEST = HistoryPrefixDigest()
