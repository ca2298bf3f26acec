"""First-party token counters for lychd (see docs/tokens.md)."""

from lychd_tokens.calibrated import CalibratedCounter
from lychd_tokens.simple import CharsCounter, Utf8BytesCounter
from lychd_tokens.tiktoken_counters import ENCODINGS, TiktokenCounter, load_encoding

__all__ = ["ENCODINGS", "CalibratedCounter", "CharsCounter", "TiktokenCounter", "Utf8BytesCounter", "load_encoding"]
