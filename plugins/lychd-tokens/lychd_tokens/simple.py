"""Counters that need no tokenizer: the reference estimate and the byte upper bound."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from lychd_core.families import TokenCountKind


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CharsCounter:
    """``chars-3``: ceil(characters / 3), the reference's estimate (it may be under on CJK text and hex)."""

    name = "chars-3"
    revision = 1
    options_model = NoOptions
    kind = TokenCountKind.ESTIMATE
    tokenizer = "chars/3"

    def count(self, text: str, options: BaseModel) -> int:
        return -(-len(text) // 3)


class Utf8BytesCounter:
    """``utf8-bytes``: the UTF-8 length, an upper bound of every byte-level BPE (each token is >= 1 byte).

    A lone surrogate counts 3 bytes, as the U+FFFD a tokenizer puts in its place.
    """

    name = "utf8-bytes"
    revision = 1
    options_model = NoOptions
    kind = TokenCountKind.UPPER_BOUND
    tokenizer = "utf-8 bytes"

    def count(self, text: str, options: BaseModel) -> int:
        return len(text.encode("utf-8", "surrogatepass"))
