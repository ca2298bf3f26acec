"""Many-needle substring search in linear time, for owner values against texts and items.

A cut asks, for up to a million owner values, whether any of them stands anywhere in a
candidate, inside a public item, in a label or in a key. Nested scans (every owner
against every item) are quadratic; one Aho-Corasick automaton (``pyahocorasick``) over
the owners answers each question in one pass over the haystack.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import ahocorasick  # type: ignore[import-not-found,unused-ignore]

MAX_NEEDLE_CHARS = 4096
"""Longest needle accepted: the automaton's trie is as deep as its longest word, and owner
values (the needles here) are at most 100 characters by the slot grammar."""


class SubstringSet:
    """A fixed set of non-empty needles, and where they occur in a text (one pass per text)."""

    __slots__ = ("_automaton", "_count", "_joinable", "_longest")

    def __init__(self, needles: Iterable[str], *, longest_haystack: int | None = None) -> None:
        """``longest_haystack``: no text searched will be longer, so longer needles are left out
        (a 100k-owner trie costs more than its input, memory-bound; it is often unneeded)."""
        fits = (lambda needle: 0 < len(needle) <= longest_haystack) if longest_haystack is not None else len
        words = list(filter(fits, needles))
        longest = max(map(len, words), default=0)
        if longest > MAX_NEEDLE_CHARS:
            raise ValueError(f"a needle of {longest} characters exceeds {MAX_NEEDLE_CHARS}; check needles first")
        automaton: Any = ahocorasick.Automaton(ahocorasick.STORE_LENGTH)  # the value is the length
        add = automaton.add_word
        for word in sorted(words):  # in order, neighbours share a trie path: 100k owners build ~20% faster
            add(word)
        self._count = len(automaton)
        if self._count:
            automaton.make_automaton()
        self._automaton = automaton
        self._joinable = "\n" not in "".join(words)
        self._longest = longest_haystack

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"SubstringSet({self._count} needles)"  # never the needles: they are sensitive

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of every occurrence of every needle in ``text``, by end position."""
        if self._longest is not None and len(text) > self._longest:
            raise ValueError(f"a text of {len(text)} characters is longer than this set was built for")
        return self._spans(text)

    def _spans(self, text: str) -> Iterator[tuple[int, int]]:
        if not self._count or not text:
            return
        for last, length in self._automaton.iter(text):
            yield last + 1 - length, last + 1

    def first_in(self, text: str) -> tuple[int, int] | None:
        """The first occurrence of any needle in ``text`` (by end position), or None."""
        return next(self.spans(text), None)

    def occurs_in(self, text: str) -> bool:
        return self.first_in(text) is not None

    def occurs_in_any(self, texts: Iterable[str]) -> bool:
        """Whether a needle occurs inside any one of ``texts`` (never across two of them)."""
        texts = list(texts)
        if self._longest is not None and max(map(len, texts), default=0) > self._longest:
            raise ValueError(f"a text is longer than the {self._longest} characters this set was built for")
        if self._joinable:  # one pass over the texts joined by a character no needle holds
            return next(self._spans("\n".join(texts)), None) is not None
        return any(self.occurs_in(text) for text in texts)
