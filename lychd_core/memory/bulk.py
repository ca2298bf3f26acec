"""Pausing CPython's cyclic garbage collector while materializing many records.

Records, scopes and their tuples are acyclic, so reference counting frees them; but
every full cyclic collection re-traverses every record built so far, which makes bulk
loads grow faster than linearly. The pause is scoped and restores the previous state.
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
