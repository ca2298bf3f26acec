"""lychd-core: bounded, hashed, explainable context for LLM agent model calls.

The public surface: what the documentation uses is importable from here (errors from
``lychd_core.errors``). Every name is re-exported lazily, so ``import lychd_core`` -- which
every submodule import pays first -- loads neither pydantic nor the stages: the parser
worker and ``lychd --version`` need neither (issue 30).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lychd_core.lazy import lazy_attribute

if TYPE_CHECKING:
    from lychd_core.assembly import AssembledContext, ContextOrchestrator, Grant
    from lychd_core.assembly.execution import ExecutionProjection
    from lychd_core.blocks import Block, Layer, Lineage, Omission, prefix_digest
    from lychd_core.compression.semantic import SemanticBudget, SemanticCompressor
    from lychd_core.config import Governors, LychdConfig, default_config, load_config
    from lychd_core.digests import canonical_json, json_digest, sha256_digest, text_digest
    from lychd_core.errors import LychdError
    from lychd_core.families import (
        MAX_SCORE,
        CompactionProposal,
        CompactionRequest,
        PrivacyFinding,
        Projected,
        RankingCandidate,
        RankingQuery,
        Score,
        SourceMaterial,
        TokenCountKind,
        Unavailable,
    )
    from lychd_core.graph import ContextGraph, ContextNode, SelectionBounds, SelectionPlan, TokenBudget, render, select
    from lychd_core.hookspecs import Register, hookimpl
    from lychd_core.labels import PrivacyClass, PrivatizationLabel, join_labels
    from lychd_core.memory import ClaimType, MemoryQuery, MemoryRecord, MemoryScope, quarantine, release, review
    from lychd_core.memory.recall import RecallReceipt
    from lychd_core.privacy import EgressConfig, EgressTarget
    from lychd_core.privacy.vault import ClaimRequest, Sink, Vault, rehydrate, return_digest
    from lychd_core.projection import MaterialRef, Projector, Workspace
    from lychd_core.ranking.plan import plan_views
    from lychd_core.registry import get_registry
    from lychd_core.roles import RoleProfile
    from lychd_core.stores.sqlite import ProjectionCache, SqliteMemoryStore
    from lychd_core.tokens import CalibrationStore
    from lychd_core.vocabulary import Authority, ContextClass, Operation, Provenance, Requirement, Trust

from lychd_core.version import __version__

_EXPORTS = {
    "lychd_core.assembly": "AssembledContext ContextOrchestrator Grant",
    "lychd_core.assembly.execution": "ExecutionProjection",
    "lychd_core.blocks": "Block Layer Lineage Omission prefix_digest",
    "lychd_core.compression.semantic": "SemanticBudget SemanticCompressor",
    "lychd_core.config": "Governors LychdConfig default_config load_config",
    "lychd_core.digests": "canonical_json json_digest sha256_digest text_digest",
    "lychd_core.errors": "LychdError",
    "lychd_core.families": (
        "MAX_SCORE CompactionProposal CompactionRequest PrivacyFinding Projected RankingCandidate "
        "RankingQuery Score SourceMaterial TokenCountKind Unavailable"
    ),
    "lychd_core.graph": ("ContextGraph ContextNode SelectionBounds SelectionPlan TokenBudget render select"),
    "lychd_core.hookspecs": "Register hookimpl",
    "lychd_core.labels": "PrivacyClass PrivatizationLabel join_labels",
    "lychd_core.memory": "ClaimType MemoryQuery MemoryRecord MemoryScope quarantine release review",
    "lychd_core.memory.recall": "RecallReceipt",
    "lychd_core.privacy": "EgressConfig EgressTarget",
    "lychd_core.privacy.vault": "ClaimRequest Sink Vault rehydrate return_digest",
    "lychd_core.projection": "MaterialRef Projector Workspace",
    "lychd_core.ranking.plan": "plan_views",
    "lychd_core.registry": "get_registry",
    "lychd_core.roles": "RoleProfile",
    "lychd_core.stores.sqlite": "ProjectionCache SqliteMemoryStore",
    "lychd_core.tokens": "CalibrationStore",
    "lychd_core.vocabulary": "Authority ContextClass Operation Provenance Requirement Trust",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, name, _EXPORTS)


__all__ = [
    "MAX_SCORE",
    "AssembledContext",
    "Authority",
    "Block",
    "CalibrationStore",
    "ClaimRequest",
    "ClaimType",
    "CompactionProposal",
    "CompactionRequest",
    "ContextClass",
    "ContextGraph",
    "ContextNode",
    "ContextOrchestrator",
    "EgressConfig",
    "EgressTarget",
    "ExecutionProjection",
    "Governors",
    "Grant",
    "Layer",
    "Lineage",
    "LychdConfig",
    "LychdError",
    "MaterialRef",
    "MemoryQuery",
    "MemoryRecord",
    "MemoryScope",
    "Omission",
    "Operation",
    "PrivacyClass",
    "PrivacyFinding",
    "PrivatizationLabel",
    "Projected",
    "ProjectionCache",
    "Projector",
    "Provenance",
    "RankingCandidate",
    "RankingQuery",
    "RecallReceipt",
    "Register",
    "Requirement",
    "RoleProfile",
    "Score",
    "SelectionBounds",
    "SelectionPlan",
    "SemanticBudget",
    "SemanticCompressor",
    "Sink",
    "SourceMaterial",
    "SqliteMemoryStore",
    "TokenBudget",
    "TokenCountKind",
    "Trust",
    "Unavailable",
    "Vault",
    "Workspace",
    "__version__",
    "canonical_json",
    "default_config",
    "get_registry",
    "hookimpl",
    "join_labels",
    "json_digest",
    "load_config",
    "plan_views",
    "prefix_digest",
    "quarantine",
    "rehydrate",
    "release",
    "render",
    "return_digest",
    "review",
    "select",
    "sha256_digest",
    "text_digest",
]
