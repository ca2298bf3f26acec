"""Hook implementations only."""

from __future__ import annotations

from lychd_core.hookspecs import Register, hookimpl
from lychd_tokens.calibrated import CalibratedCounter
from lychd_tokens.simple import CharsCounter, Utf8BytesCounter
from lychd_tokens.tiktoken_counters import ENCODINGS, TiktokenCounter


@hookimpl
def lychd_register_token_counters(register: Register) -> None:
    register(CharsCounter())
    register(Utf8BytesCounter())
    for encoding in ENCODINGS:
        register(TiktokenCounter(encoding))
    register(CalibratedCounter())
