"""Many-needle substring search in linear time, for owner values against texts and items.

A cut asks, for up to a million owner values, whether any of them stands anywhere in a
candidate, inside a public item, in a label or in a key. Nested scans (every owner
against every item) are quadratic; one Aho-Corasick automaton (``pyahocorasick``) over
the owners answers each question in one pass over the haystack.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Any

import ahocorasick  # type: ignore[import-not-found,unused-ignore]

MAX_NEEDLE_CHARS = 4096
"""Longest needle accepted: the automaton's trie is as deep as its longest word, and owner
values (the needles here) are at most 100 characters by the slot grammar."""
WINDOW_CHARS = 1 << 16
"""Characters of a text handed to the automaton at once: pyahocorasick copies each text it
searches to 4 bytes a character, so a 10 MB candidate in one pass allocated 40 MB, too large
for the allocator to keep, and page-faulted it in on every cut (over half the censor's
page faults); a window's copy is 256 KB and reused."""


class SubstringSet:
    """A fixed set of non-empty needles, and where they occur in a text (one pass per text)."""

    __slots__ = ("_automaton", "_count", "_deepest", "_longest")

    def __init__(self, needles: Iterable[str], *, longest_haystack: int | None = None) -> None:
        """``longest_haystack``: no text searched will be longer, so longer needles are left out
        (a 100k-owner trie costs more than its input, memory-bound; it is often unneeded). Only
        when one was left out is a longer text refused; a set holding every needle answers for any.

        Needles are inserted in the order given, each once (the trie dedupes, and never holds an
        empty one): a text's owners in their order of first appearance lie in memory in that order,
        and neighbours often share a prefix, so the build stays in cache (100k owners: 16 ms in a
        text's order, 40 ms in a hash set's). No other pass over the needles is made."""
        words: Iterable[str] = needles
        self._longest: int | None = None  # the bound texts are held to, once a needle is left out
        if longest_haystack is not None:
            words = needles if isinstance(needles, Collection) else list(needles)
            if max(map(len, words), default=0) > longest_haystack:  # filtered only when one is left out
                words = [word for word in words if len(word) <= longest_haystack]
                self._longest = longest_haystack
        automaton: Any = ahocorasick.Automaton(ahocorasick.STORE_LENGTH)  # the value is the length
        add = automaton.add_word
        for word in words:
            add(word)
        longest = automaton.get_stats()["longest_word"]  # the trie's own count: no pass over the words
        if longest > MAX_NEEDLE_CHARS:
            raise ValueError(f"a needle of {longest} characters exceeds {MAX_NEEDLE_CHARS}; check needles first")
        self._count = len(automaton)
        if self._count:
            automaton.make_automaton()
        self._automaton = automaton
        self._deepest = longest

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
        # Window by window: each occurrence is reported by the window holding its last character,
        # which is searched from ``reach`` characters earlier, so the automaton is in the state it
        # would be in over the whole text (no trie path is deeper) and the order is unchanged.
        search, reach = self._automaton.iter, self._deepest - 1
        for start in range(0, len(text), WINDOW_CHARS):
            low = max(0, start - reach)
            for last, length in search(text[low : start + WINDOW_CHARS]):
                if low + last >= start:
                    yield low + last + 1 - length, low + last + 1

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
        if not self._count:
            return False
        # One pass over the texts joined by newlines: an occurrence without a newline lies inside one
        # text. Only a needle holding a newline can straddle two, and then each text is searched alone.
        joined = "\n".join(texts)
        first = next(self._spans(joined), None)
        if first is None or "\n" not in joined[first[0] : first[1]]:
            return first is not None
        return any(self.occurs_in(text) for text in texts)
