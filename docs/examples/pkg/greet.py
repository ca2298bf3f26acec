"""Greeting helpers.

Everything here is deterministic.
"""

from __future__ import annotations

import functools
from typing import Protocol

__all__ = ["Greeter", "greet"]


@functools.cache
def greet(name: str, /, *, punctuation: str = "!") -> str:
    """Greet someone."""
    return f"Hello, {name}{punctuation}"


def _unlisted() -> None:
    pass


class Greeter(Protocol):
    prefix: str = "Hello"

    def __call__(self, name: str) -> str: ...

    async def later(self, name: str, delay: float = 0.5) -> str:
        return name
