"""Lazy re-exports for package ``__init__`` modules (PEP 562).

Importing any submodule runs its package's ``__init__`` first, so a package that
imported all its submodules eagerly would make ``lychd assemble`` load the Privacy Cut,
the memory store's retrieval and every compressor on every cold start
(``benchmarks/bench_cold_assemble.py``, issue 30). A package lists what it exports by
module (names separated by spaces); each is imported on first use, then kept on the package.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from importlib import import_module
from typing import Any


def lazy_attribute(package: str, name: str, exports: Mapping[str, str]) -> Any:
    """``package.name`` from the module ``exports`` lists it under; ``AttributeError`` when none does."""
    for module, names in exports.items():
        if name in names.split():
            value = getattr(import_module(module), name)
            setattr(sys.modules[package], name, value)
            return value
    raise AttributeError(f"module {package!r} has no attribute {name!r}")
