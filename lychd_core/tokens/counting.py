"""A resolved token counter: ``count(text) -> int``, its kind, and a bounded cache of counts.

Counters run in the caller's process, without the plugin call time limit (one call per
text would cost a thread each); whatever a counter raises, or a count that is not an
integer >= 0, becomes a typed :class:`TokenCountError` naming the counter.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from lychd_core.errors import TokenCountError
from lychd_core.families import TokenCountKind

REFERENCE_PIN = "reference"
"""What a plan names when no ``[tokens] counter`` is configured: ceil(chars / chars_per_token)."""


@dataclass(frozen=True, slots=True)
class CountStats:
    """How a counter's cache did: counts served from it and counts computed."""

    hits: int
    misses: int
    cached_chars: int
    stored: int = 0
    """Counts entered from the projection cache (``tokens.persisted``) rather than counted."""


@dataclass(eq=False)
class BoundCounter:
    """A counter with its options bound: ``count(text)`` (also ``counter(text)``) is the token count.

    ``pin`` names it in plans (``o200k_base@1``, or ``reference`` for the built-in
    estimate); counts of equal texts are remembered up to ``cache_chars`` characters
    (oldest forgotten first), so a text counted once costs a dictionary look-up after.
    ``identity`` names the counter's counts in the projection cache (pin, tokenizer and bound
    options); empty, they are never stored there (the reference and calibrated counters).
    """

    pin: str
    kind: TokenCountKind
    tokenizer: str
    raw: Callable[[str], int]
    distribution: str = "lychd-core"
    cache_chars: int = 32_000_000
    identity: str = ""
    _cache: dict[str, int] = field(default_factory=dict, repr=False)
    _cached_chars: int = field(default=0, repr=False)
    _hits: int = field(default=0, repr=False)
    _misses: int = field(default=0, repr=False)
    _stored: int = field(default=0, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, text: str) -> int:
        """Tokens of ``text`` (>= 0)."""
        cached = self._cache.get(text)
        if cached is not None:
            self._hits += 1
            return cached
        value = self._checked(text)
        self._misses += 1
        if 0 < len(text) <= self.cache_chars:
            self._remember(text, value)
        return value

    __call__ = count

    def stats(self) -> CountStats:
        return CountStats(self._hits, self._misses, self._cached_chars, self._stored)

    def knows(self, text: str) -> bool:
        """Whether ``text``'s count is remembered (counting it would cost a look-up)."""
        return text in self._cache

    def knows_any(self) -> bool:
        """Whether any count is remembered (a fresh counter knows none: nothing to filter out)."""
        return bool(self._cache)

    def known(self, text: str) -> int | None:
        """The remembered count of ``text``, or None; never counts, and is no hit or miss."""
        return self._cache.get(text)

    def enter(self, text: str, value: int) -> None:
        """Remember a count read back from the projection cache (verified there) as if counted."""
        if type(value) is not int or value < 0:
            raise TokenCountError(f"a stored count of token counter {self.pin} must be an integer >= 0, got {value!r}")
        if 0 < len(text) <= self.cache_chars:
            self._stored += 1
            self._remember(text, value)

    def enter_many(self, counts: Iterable[tuple[str, int]]) -> None:
        """:meth:`enter` of many ``(text, count)`` pairs under one lock (a warm run enters hundreds at once)."""
        limit = self.cache_chars
        kept = {text: value for text, value in counts if 0 < len(text) <= limit}
        for value in kept.values():
            if type(value) is not int or value < 0:
                raise TokenCountError(
                    f"a stored count of token counter {self.pin} must be an integer >= 0, got {value!r}"
                )
        with self._lock:
            self._stored += len(kept)
            new = {text: value for text, value in kept.items() if text not in self._cache} if self._cache else kept
            self._cache.update(new)
            self._cached_chars += sum(map(len, new))
            self._forget_oldest()

    def _checked(self, text: str) -> int:
        try:
            value = self.raw(text)
        except Exception as exc:  # the boundary: a counter's failure is typed and names it
            raise TokenCountError(
                f"token counter {self.pin} from {self.distribution} raised {type(exc).__name__}: {exc}; "
                f"fix or uninstall {self.distribution}, or configure another [tokens] counter"
            ) from exc
        if type(value) is not int or value < 0:
            raise TokenCountError(
                f"token counter {self.pin} from {self.distribution} returned {value!r} for a text of "
                f"{len(text)} characters; a count must be an integer >= 0"
            )
        return value

    def _remember(self, text: str, value: int) -> None:
        with self._lock:
            if text in self._cache:
                return
            self._cache[text] = value
            self._cached_chars += len(text)
            self._forget_oldest()

    def _forget_oldest(self) -> None:
        """Down to ``cache_chars`` characters, oldest forgotten first (under the lock)."""
        while self._cached_chars > self.cache_chars:
            oldest = next(iter(self._cache))
            self._cached_chars -= len(oldest)
            del self._cache[oldest]


def reference_counter(chars_per_token: int) -> BoundCounter:
    """The reference estimate, ceil(characters / ``chars_per_token``): what selection used before counters."""
    if type(chars_per_token) is not int or chars_per_token < 1:
        raise ValueError(f"chars_per_token must be an integer >= 1, got {chars_per_token!r}")

    def estimate(text: str) -> int:
        return -(-len(text) // chars_per_token)

    return BoundCounter(REFERENCE_PIN, TokenCountKind.ESTIMATE, f"chars/{chars_per_token}", estimate, cache_chars=0)
