"""Pausing CPython's cyclic garbage collector around bulk, acyclic work.

Records, nodes and their tuples and arrays are acyclic, so reference counting frees
them; but every full cyclic collection re-traverses every object built so far, which
makes bulk loads and selection over large graphs grow faster than linearly. The strict
JSON and TOML readers pause it too, for correctness: a collection started while a deeply
nested input holds the parser at the recursion limit would run other objects' finalizers
with no stack left. The pause is scoped and restores the previous state.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
