"""lychd-core: bounded, hashed, explainable context for LLM agent model calls.

Every name below is re-exported lazily (the core types and one entry point per stage
folder), so ``import lychd_core`` -- which every submodule import pays first -- loads
neither pydantic nor the stages: the parser worker and ``lychd --version`` need neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lychd_core.lazy import lazy_attribute

if TYPE_CHECKING:
    from lychd_core.assembly import AssembledContext, ContextOrchestrator, Grant
    from lychd_core.blocks import Block, Layer, Lineage, Omission, prefix_digest
    from lychd_core.digests import canonical_json, json_digest, sha256_digest, text_digest
    from lychd_core.errors import LychdError
    from lychd_core.graph import ContextGraph, ContextNode, SelectionPlan, TokenBudget, select
    from lychd_core.labels import PrivacyClass, PrivatizationLabel, join_labels
    from lychd_core.projection import MaterialRef, Projector, Workspace

from lychd_core.version import __version__

_EXPORTS = {
    "lychd_core.blocks": "Block Layer Lineage Omission prefix_digest",
    "lychd_core.digests": "canonical_json json_digest sha256_digest text_digest",
    "lychd_core.errors": "LychdError",
    "lychd_core.labels": "PrivacyClass PrivatizationLabel join_labels",
    "lychd_core.projection": "MaterialRef Workspace Projector",
    "lychd_core.graph": "ContextGraph ContextNode SelectionPlan TokenBudget select",
    "lychd_core.assembly": "AssembledContext ContextOrchestrator Grant",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, name, _EXPORTS)


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
