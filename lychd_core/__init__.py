"""lychd-core: bounded, hashed, explainable context for LLM agent model calls.

The core types are imported eagerly; the pipeline's main entry points (one per stage
folder) are re-exported lazily, so ``import lychd_core`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from lychd_core.blocks import Block, Layer, Lineage, Omission, prefix_digest
from lychd_core.digests import canonical_json, json_digest, sha256_digest, text_digest
from lychd_core.errors import LychdError
from lychd_core.labels import PrivacyClass, PrivatizationLabel, join_labels

if TYPE_CHECKING:
    from lychd_core.assembly import AssembledContext, ContextOrchestrator, Grant
    from lychd_core.graph import ContextGraph, ContextNode, SelectionPlan, TokenBudget, select
    from lychd_core.projection import MaterialRef, Projector, Workspace

__version__ = "0.1.0"

_LAZY = {
    "MaterialRef": "lychd_core.projection",
    "Workspace": "lychd_core.projection",
    "Projector": "lychd_core.projection",
    "ContextGraph": "lychd_core.graph",
    "ContextNode": "lychd_core.graph",
    "SelectionPlan": "lychd_core.graph",
    "TokenBudget": "lychd_core.graph",
    "select": "lychd_core.graph",
    "AssembledContext": "lychd_core.assembly",
    "ContextOrchestrator": "lychd_core.assembly",
    "Grant": "lychd_core.assembly",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'lychd_core' has no attribute {name!r}")


__all__ = [
    "AssembledContext",
    "Block",
    "ContextGraph",
    "ContextNode",
    "ContextOrchestrator",
    "Grant",
    "Layer",
    "Lineage",
    "LychdError",
    "MaterialRef",
    "Omission",
    "PrivacyClass",
    "PrivatizationLabel",
    "Projector",
    "SelectionPlan",
    "TokenBudget",
    "Workspace",
    "__version__",
    "canonical_json",
    "join_labels",
    "json_digest",
    "prefix_digest",
    "select",
    "sha256_digest",
    "text_digest",
]
