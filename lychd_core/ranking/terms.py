"""Query and text terms: identifiers split the way programmers write them.

``parse_config_value`` -> ``parse_config_value``, ``parse``, ``config``, ``value``;
``HTTPServerError`` -> ``httpservererror``, ``http``, ``server``, ``error``;
``os.path.join`` -> each dotted part, then as above. Everything is lower-cased.
Words of any script are kept (``\\w``); a query in another script simply matches
nothing, which the ranking explains.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from itertools import chain

WORD = re.compile(r"[^\W\d]\w*", re.UNICODE)
"""An identifier-like word: a letter or underscore, then word characters."""
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
"""Links are not identifiers: their host and path words would match unrelated text."""
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

_STOP_TEXT = """
a an and are as at be but by for from has have if in into is it its no not of on or so that the
their then there these this to was were when which while will with you your we our can may
should would could do does did done also use used using via def self cls none true false return
don doesn didn isn aren wasn won shouldn couldn wouldn haven hasn
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
"""English glue words and Python keywords so common they rank nothing."""

MIN_TERM = 2


def split_identifier(name: str) -> list[str]:
    """The lower-cased parts of one identifier (snake_case and CamelCase), without the whole."""
    parts: list[str] = []
    for chunk in name.split("_"):
        if chunk:
            parts.extend(piece.lower() for piece in _CAMEL.findall(chunk) or [chunk])
    return parts


def singular(term: str) -> str:
    """A light plural fold (``cookies`` -> ``cookie``, ``headers`` -> ``header``), the same on both sides."""
    if len(term) > 3 and term.endswith("s") and not term.endswith(("ss", "us", "is")):
        return term[:-1]
    return term


MAX_CACHED_WORDS = 1 << 18
"""The memos of :func:`word_terms` and :func:`path_terms` are emptied past this many entries
(see :func:`bound_word_cache`)."""


@cache  # unbounded: a hit is one dict lookup, without the relinking a bounded LRU does
def word_terms(word: str) -> tuple[str, ...]:
    """The whole word (lower-cased) and its parts, stop words and one-letter parts dropped,
    plurals folded. Memoized: identifiers repeat across a repository."""
    found: list[str] = []
    whole = word.lower().strip("_")
    if len(whole) >= MIN_TERM and whole not in STOP_WORDS:
        found.append(singular(whole))
    parts = split_identifier(word)
    if len(parts) > 1:
        for part in parts:
            if len(part) >= MIN_TERM and part not in STOP_WORDS and part != whole:
                found.append(singular(part))
    return tuple(found)


def bound_word_cache() -> None:
    """Empty the :func:`word_terms` and :func:`path_terms` memos once either holds more than
    ``MAX_CACHED_WORDS`` entries (called once per ranking, so a long-lived process does not
    grow without bound)."""
    if word_terms.cache_info().currsize > MAX_CACHED_WORDS:
        word_terms.cache_clear()
    if path_terms.cache_info().currsize > MAX_CACHED_WORDS:
        path_terms.cache_clear()


def terms(text: str) -> list[str]:
    """Every term of ``text`` in order (with repeats): dotted names split at the dots."""
    if "://" in text:
        text = URL.sub(" ", text)
    return list(chain.from_iterable(map(word_terms, WORD.findall(text))))


@cache  # a ranking asks for each candidate's path terms up to three times, and again next request
def path_terms(path: str) -> tuple[str, ...]:
    """Terms of a workspace path: each directory and the file's stem (``routing/map.py`` -> routing, map)."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return tuple(terms(stem.replace("/", " ")))


def identifiers(text: str) -> set[str]:
    """Whole identifier-like words of ``text`` as written (case kept), at least three characters."""
    return {match.group() for match in WORD.finditer(text) if len(match.group()) >= 3}


def unique(items: Iterable[str]) -> list[str]:
    """``items`` without repeats, first occurrence kept."""
    return list(dict.fromkeys(items))
