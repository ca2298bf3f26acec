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
    from lychd_core.assembly import AssembledContext as AssembledContext
    from lychd_core.assembly import ContextOrchestrator as ContextOrchestrator
    from lychd_core.assembly import Grant as Grant
    from lychd_core.assembly.execution import ExecutionProjection as ExecutionProjection
    from lychd_core.blocks import Block as Block
    from lychd_core.blocks import Layer as Layer
    from lychd_core.blocks import Lineage as Lineage
    from lychd_core.blocks import Omission as Omission
    from lychd_core.blocks import prefix_digest as prefix_digest
    from lychd_core.compression.semantic import SemanticBudget as SemanticBudget
    from lychd_core.compression.semantic import SemanticCompressor as SemanticCompressor
    from lychd_core.config import Governors as Governors
    from lychd_core.config import LychdConfig as LychdConfig
    from lychd_core.config import default_config as default_config
    from lychd_core.config import load_config as load_config
    from lychd_core.digests import canonical_json as canonical_json
    from lychd_core.digests import json_digest as json_digest
    from lychd_core.digests import sha256_digest as sha256_digest
    from lychd_core.digests import text_digest as text_digest
    from lychd_core.errors import LychdError as LychdError
    from lychd_core.families import MAX_SCORE as MAX_SCORE
    from lychd_core.families import CompactionProposal as CompactionProposal
    from lychd_core.families import CompactionRequest as CompactionRequest
    from lychd_core.families import PrivacyFinding as PrivacyFinding
    from lychd_core.families import Projected as Projected
    from lychd_core.families import RankingCandidate as RankingCandidate
    from lychd_core.families import RankingQuery as RankingQuery
    from lychd_core.families import Score as Score
    from lychd_core.families import SourceMaterial as SourceMaterial
    from lychd_core.families import TokenCountKind as TokenCountKind
    from lychd_core.families import Unavailable as Unavailable
    from lychd_core.graph import ContextGraph as ContextGraph
    from lychd_core.graph import ContextNode as ContextNode
    from lychd_core.graph import SelectionBounds as SelectionBounds
    from lychd_core.graph import SelectionPlan as SelectionPlan
    from lychd_core.graph import TokenBudget as TokenBudget
    from lychd_core.graph import render as render
    from lychd_core.graph import select as select
    from lychd_core.hookspecs import Register as Register
    from lychd_core.hookspecs import hookimpl as hookimpl
    from lychd_core.labels import PrivacyClass as PrivacyClass
    from lychd_core.labels import PrivatizationLabel as PrivatizationLabel
    from lychd_core.labels import join_labels as join_labels
    from lychd_core.memory import ClaimType as ClaimType
    from lychd_core.memory import MemoryQuery as MemoryQuery
    from lychd_core.memory import MemoryRecord as MemoryRecord
    from lychd_core.memory import MemoryScope as MemoryScope
    from lychd_core.memory import quarantine as quarantine
    from lychd_core.memory import release as release
    from lychd_core.memory import review as review
    from lychd_core.memory.recall import RecallReceipt as RecallReceipt
    from lychd_core.privacy import EgressConfig as EgressConfig
    from lychd_core.privacy import EgressTarget as EgressTarget
    from lychd_core.privacy.vault import ClaimRequest as ClaimRequest
    from lychd_core.privacy.vault import Sink as Sink
    from lychd_core.privacy.vault import Vault as Vault
    from lychd_core.privacy.vault import rehydrate as rehydrate
    from lychd_core.privacy.vault import return_digest as return_digest
    from lychd_core.projection import MaterialRef as MaterialRef
    from lychd_core.projection import Projector as Projector
    from lychd_core.projection import Workspace as Workspace
    from lychd_core.ranking.plan import plan_views as plan_views
    from lychd_core.registry import get_registry as get_registry
    from lychd_core.roles import RoleProfile as RoleProfile
    from lychd_core.stores.sqlite import ProjectionCache as ProjectionCache
    from lychd_core.stores.sqlite import SqliteMemoryStore as SqliteMemoryStore
    from lychd_core.tokens import CalibrationStore as CalibrationStore
    from lychd_core.vocabulary import Authority as Authority
    from lychd_core.vocabulary import ContextClass as ContextClass
    from lychd_core.vocabulary import Operation as Operation
    from lychd_core.vocabulary import Provenance as Provenance
    from lychd_core.vocabulary import Requirement as Requirement
    from lychd_core.vocabulary import Trust as Trust

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
        "MAX_SCORE CompactionProposal CompactionRequest PrivacyFinding Projected RankingCandidate RankingQuery Score "
        "SourceMaterial TokenCountKind Unavailable"
    ),
    "lychd_core.graph": "ContextGraph ContextNode SelectionBounds SelectionPlan TokenBudget render select",
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


__all__ = ["__version__", *sorted({name for names in _EXPORTS.values() for name in names.split()})]
