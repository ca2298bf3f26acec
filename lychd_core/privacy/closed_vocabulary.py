"""A closed public vocabulary a deployment supplies as a file with its own digest.

Items are plain ASCII tokens, so a homoglyph or a zero-width character can never
pass for a listed item: the file itself is refused if it holds one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from lychd_core.digests import json_digest
from lychd_core.errors import VocabularyError
from lychd_core.inputs import parse_toml, read_input_text

VOCABULARY_SCHEMA = "closed-vocabulary@1"
ITEM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+!:~-]{0,127}")
MAX_ITEMS = 1_000_000
MAX_VOCABULARY_BYTES = 128 * 1024 * 1024


@dataclass(frozen=True)
class ClosedVocabulary:
    """Named kinds of public items (``dependencies``, ``statuses``, ...), each a closed set."""

    kinds: Mapping[str, frozenset[str]]
    digest: str

    @classmethod
    def from_mapping(cls, data: Any, source: str = "<vocabulary>") -> ClosedVocabulary:
        if not isinstance(data, Mapping) or data.get("schema") != VOCABULARY_SCHEMA:
            raise VocabularyError(f"{source}: expected a table with schema = {VOCABULARY_SCHEMA!r}")
        items = data.get("items")
        extra = sorted(set(data) - {"schema", "items"})
        if extra or not isinstance(items, Mapping):
            raise VocabularyError(f"{source}: expected only 'schema' and an [items] table of lists (extra: {extra})")
        kinds: dict[str, frozenset[str]] = {}
        total = 0
        for kind, values in items.items():
            if not re.fullmatch(r"[a-z][a-z0-9-]{0,39}", kind) or not isinstance(values, list):
                raise VocabularyError(f"{source}: items.{kind} must be a list under a lowercase kind name")
            for index, value in enumerate(values):
                if not isinstance(value, str) or not ITEM.fullmatch(value):
                    raise VocabularyError(
                        f"{source}: items.{kind}[{index}] is not a plain ASCII token "
                        "(letters, digits, . _ + ! : ~ -; no spaces, homoglyphs or invisible characters)"
                    )
            total += len(values)
            kinds[kind] = frozenset(values)
        if total > MAX_ITEMS:
            raise VocabularyError(f"{source}: {total} items exceed the bound of {MAX_ITEMS}")
        canonical = {"schema": VOCABULARY_SCHEMA, "items": {k: sorted(v) for k, v in sorted(kinds.items())}}
        return cls(kinds=kinds, digest=json_digest(canonical))

    @classmethod
    def load(cls, path: str | Path) -> ClosedVocabulary:
        """Read a vocabulary file through the strict input layer (regular file, bounded, strict TOML)."""
        name = str(path)
        text = read_input_text(name, what="vocabulary", max_bytes=MAX_VOCABULARY_BYTES, error=VocabularyError)
        return cls.from_mapping(parse_toml(text, source=name, error=VocabularyError), name)

    def items(self, kind: str) -> frozenset[str]:
        """The items of one kind; a kind the file does not list is empty (nothing passes)."""
        return self.kinds.get(kind, frozenset())

    def longest(self, kind: str) -> int:
        """Characters in the longest item of one kind (0 for a kind the file does not list)."""
        return self._longest.get(kind, 0)

    @cached_property
    def _longest(self) -> dict[str, int]:
        return {kind: max(map(len, items), default=0) for kind, items in self.kinds.items()}

    def all_items(self) -> frozenset[str]:
        """Every item of every kind (computed once: the vocabulary is immutable)."""
        return self._all_items

    @cached_property
    def _all_items(self) -> frozenset[str]:
        return frozenset().union(*self.kinds.values())
