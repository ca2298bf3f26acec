"""Exact counters for OpenAI's ``o200k_base`` and ``cl100k_base``, through tiktoken.

The encoding files are this package's data (byte-identical to OpenAI's: their sha256 is
checked on load against the digests tiktoken itself expects), so nothing is downloaded,
ever: tiktoken's own loader would fetch them on first use.
"""

from __future__ import annotations

import base64
import hashlib
import threading
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from pydantic import BaseModel

from lychd_core.errors import LychdError
from lychd_core.families import TokenCountKind
from lychd_tokens.simple import NoOptions

if TYPE_CHECKING:
    import tiktoken


class EncodingFileError(LychdError, ValueError):
    """A shipped encoding file is missing or not the one OpenAI published."""


@dataclass(frozen=True, slots=True)
class EncodingSpec:
    sha256: str
    pattern: str
    special_tokens: dict[str, int]


_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_CL100K_PATTERN = "|".join(
    [
        r"""'(?i:[sdmt]|ll|ve|re)""",
        r"""[^\r\n\p{L}\p{N}]?+\p{L}++""",
        r"""\p{N}{1,3}+""",
        r""" ?[^\s\p{L}\p{N}]++[\r\n]*+""",
        r"""\s++$""",
        r"""\s*[\r\n]""",
        r"""\s+(?!\S)""",
        r"""\s""",
    ]
)
ENCODINGS: dict[str, EncodingSpec] = {
    "o200k_base": EncodingSpec(
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        _O200K_PATTERN,
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
    "cl100k_base": EncodingSpec(
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        _CL100K_PATTERN,
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
}
_loaded: dict[str, tiktoken.Encoding] = {}
_lock = threading.Lock()


def _ranks(name: str, data: bytes) -> dict[bytes, int]:
    if hashlib.sha256(data).hexdigest() != ENCODINGS[name].sha256:
        raise EncodingFileError(
            f"lychd_tokens/data/{name}.tiktoken is not OpenAI's {name} (sha256 differs); reinstall lychd-tokens"
        )
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


def load_encoding(name: str) -> tiktoken.Encoding:
    """The tiktoken ``Encoding`` of ``name`` from this package's data (loaded once per process)."""
    with _lock:
        found = _loaded.get(name)
        if found is not None:
            return found
        import tiktoken

        spec = ENCODINGS.get(name)
        if spec is None:
            raise EncodingFileError(f"no shipped encoding {name!r} (shipped: {', '.join(ENCODINGS)})")
        try:
            data = resources.files("lychd_tokens").joinpath("data", f"{name}.tiktoken").read_bytes()
        except OSError as exc:
            raise EncodingFileError(f"the shipped {name} encoding file cannot be read ({exc}); reinstall") from exc
        encoding = tiktoken.Encoding(
            name=f"lychd-{name}",
            pat_str=spec.pattern,
            mergeable_ranks=_ranks(name, data),
            special_tokens=spec.special_tokens,
        )
        _loaded[name] = encoding
        return encoding


class TiktokenCounter:
    """The exact count of one OpenAI encoding; special-token text counts as ordinary text."""

    revision = 1
    options_model = NoOptions
    kind = TokenCountKind.EXACT

    def __init__(self, encoding: str) -> None:
        if encoding not in ENCODINGS:
            raise EncodingFileError(f"no shipped encoding {encoding!r} (shipped: {', '.join(ENCODINGS)})")
        self.name = encoding
        self.tokenizer = f"tiktoken {encoding}"

    def count(self, text: str, options: BaseModel) -> int:
        return len(load_encoding(self.name).encode_ordinary(text))
