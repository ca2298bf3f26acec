"""The ``verbatim`` revision 1 projection profile: exact decoded text under declared rules."""

from __future__ import annotations

import codecs
import re
import sys
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lychd_core.blocks import Omission
from lychd_core.digests import JsonValue
from lychd_core.families import Projected, SourceMaterial, Unavailable
from lychd_core.mediatypes import known_text_types

FORMAT = "verbatim/1"
MEDIA_TYPES = known_text_types()  # every text kind the core can decide (a superset of revision 1's first list)
# C0 controls that text files do not contain (tab, line feed, vertical tab, form feed,
# carriage return and escape are allowed): their presence means binary content.
_BINARY_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f]")
_BREAKS = re.compile(r"\r\n|\r|\n")


class VerbatimOptions(BaseModel):
    """How bytes become text, and what happens when the text is over the character bound."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    encoding: Literal["utf-8", "utf-16", "latin-1", "cp1252", "ascii"] = Field(
        default="utf-8",
        description="Pinned encoding, decoded strictly. With utf-8 a leading byte-order mark is dropped and "
        "reported in the facts; undecodable bytes refuse.",
        examples=["utf-8"],
    )
    newlines: Literal["normalize", "preserve"] = Field(
        default="normalize",
        description="normalize turns \\r\\n and \\r into \\n; preserve keeps the source's line endings.",
        examples=["normalize"],
    )
    truncation: Literal["refuse", "head"] = Field(
        default="refuse",
        description="Over the character bound: refuse (unavailable), or keep whole leading lines and end with a "
        "visible marker, recording the omitted line range in the block's lineage.",
        examples=["refuse"],
    )


def _count_breaks(text: str) -> int:
    return len(_BREAKS.findall(text))


def line_provenance(text: str) -> tuple[list[str], list[int]]:
    """``text.splitlines(keepends=True)`` and the source line (``\\n``, ``\\r\\n``, ``\\r`` counted) of each."""
    pieces = text.splitlines(keepends=True)
    sources: list[int] = []
    line = 1
    for piece in pieces:
        sources.append(line)
        line += _count_breaks(piece)
    return pieces, sources


def newline_style(text: str) -> str:
    styles = {"\r\n": "crlf", "\r": "cr", "\n": "lf"}
    found = {styles[match] for match in _BREAKS.findall(text)}
    return found.pop() if len(found) == 1 else ("none" if not found else "mixed")


class VerbatimProfile:
    """Exact text with line provenance; never silently cut."""

    name = "verbatim"
    revision = 1
    options_model = VerbatimOptions
    media_types = MEDIA_TYPES
    parser_version = f"python {sys.version_info[0]}.{sys.version_info[1]} codecs"
    time_bounded = True  # decoding and linear scans of input already bounded by max_bytes

    def project(self, source: SourceMaterial, options: BaseModel) -> Projected | Unavailable:
        if not isinstance(options, VerbatimOptions):
            options = VerbatimOptions.model_validate(options.model_dump())
        data = source.data
        if len(data) > source.max_bytes:
            return Unavailable(f"the material has {len(data)} bytes, over the bound of {source.max_bytes}")
        bom = options.encoding == "utf-8" and data.startswith(codecs.BOM_UTF8)
        try:
            text = (data[len(codecs.BOM_UTF8) :] if bom else data).decode(options.encoding)
        except UnicodeDecodeError as exc:
            return Unavailable(f"the material is not valid {options.encoding}: undecodable byte at offset {exc.start}")
        control = _BINARY_CONTROLS.search(text)
        if control is not None:
            return Unavailable(
                f"the material looks binary: control character U+{ord(control.group()):04X} at character "
                f"{control.start()}; verbatim projects text only"
            )
        style = newline_style(text)
        if options.newlines == "normalize":
            text = _BREAKS.sub("\n", text)
        pieces, sources = line_provenance(text)
        facts: dict[str, JsonValue] = {
            "format": FORMAT,
            "encoding": options.encoding,
            "byte_order_mark": bom,
            "newlines": options.newlines,
            "source_newlines": style,
            "source_lines": sources[-1] if sources else 0,
            "truncated": False,
        }
        if len(text) <= source.max_chars:
            facts["projected_lines"] = len(pieces)
            return Projected(text=text, facts=facts, line_map=tuple(sources))
        if options.truncation == "refuse":
            return Unavailable(
                f"the text has {len(text)} characters, over the bound of {source.max_chars}, and the "
                "truncation policy is refuse; raise max_chars or use truncation = 'head'"
            )
        return _head(pieces, sources, source.max_chars, facts)


def _marker(first_omitted: int, last_line: int) -> str:
    return f"[verbatim: truncated; source lines {first_omitted}-{last_line} of {last_line} omitted]"


def _head(
    pieces: list[str], sources: list[int], max_chars: int, facts: dict[str, JsonValue]
) -> Projected | Unavailable:
    """Whole leading lines plus a visible marker naming the omitted source lines."""
    last_line = sources[-1]
    room = len(_marker(last_line, last_line)) + 1  # the longest marker, after a line break
    kept = used = 0
    while kept < len(pieces) and used + len(pieces[kept]) + room <= max_chars:
        used += len(pieces[kept])
        kept += 1
    if kept == len(pieces):  # cannot happen: the whole text was over the bound
        kept -= 1
    first_omitted = sources[kept]
    head = "".join(pieces[:kept])
    separator = "" if not head or head.endswith(("\n", "\r")) else "\n"
    text = head + separator + _marker(first_omitted, last_line)
    if len(text) > max_chars:
        return Unavailable(f"the character bound of {max_chars} cannot hold even the truncation marker")
    omission = Omission(
        kind="truncated",
        first_line=first_omitted,
        last_line=last_line,
        reason=f"verbatim head policy: over the character bound of {max_chars}",
    )
    facts = {**facts, "truncated": True, "projected_lines": kept + 1}
    return Projected(text=text, facts=facts, line_map=(*sources[:kept], first_omitted), omissions=(omission,))


PROFILE = VerbatimProfile()
