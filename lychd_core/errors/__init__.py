"""Every typed error lychd-core raises, importable from here: ``from lychd_core.errors import X``.

One base, ``LychdError``; each error also inherits the matching builtin where natural, so
callers can catch either. Messages name the thing, what was expected and what to do. The
definitions live in one module per concern beside this one, importing nothing but the core's
root modules, so every layer can raise them; each is loaded on first use (issue 30).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lychd_core.lazy import lazy_attribute

if TYPE_CHECKING:
    from lychd_core.errors.assembly import ExecutionProjectionError as ExecutionProjectionError
    from lychd_core.errors.assembly import FloorBlockError as FloorBlockError
    from lychd_core.errors.assembly import RequestInputLimitError as RequestInputLimitError
    from lychd_core.errors.base import AssemblyError as AssemblyError
    from lychd_core.errors.base import BinaryMaterialError as BinaryMaterialError
    from lychd_core.errors.base import BlockError as BlockError
    from lychd_core.errors.base import BudgetError as BudgetError
    from lychd_core.errors.base import CompactionError as CompactionError
    from lychd_core.errors.base import ConfigError as ConfigError
    from lychd_core.errors.base import ContextBudgetExceededError as ContextBudgetExceededError
    from lychd_core.errors.base import DuplicatePluginError as DuplicatePluginError
    from lychd_core.errors.base import GraphError as GraphError
    from lychd_core.errors.base import HistoryError as HistoryError
    from lychd_core.errors.base import LeaseError as LeaseError
    from lychd_core.errors.base import LychdError as LychdError
    from lychd_core.errors.base import MaterialError as MaterialError
    from lychd_core.errors.base import MediaTypeConflictError as MediaTypeConflictError
    from lychd_core.errors.base import MediaTypeError as MediaTypeError
    from lychd_core.errors.base import MemoryRecordError as MemoryRecordError
    from lychd_core.errors.base import MemoryStoreError as MemoryStoreError
    from lychd_core.errors.base import PluginCallError as PluginCallError
    from lychd_core.errors.base import PluginError as PluginError
    from lychd_core.errors.base import PluginLoadError as PluginLoadError
    from lychd_core.errors.base import PluginTimeoutError as PluginTimeoutError
    from lychd_core.errors.base import PluginValidationError as PluginValidationError
    from lychd_core.errors.base import PrivacyRefusal as PrivacyRefusal
    from lychd_core.errors.base import ProjectionCacheError as ProjectionCacheError
    from lychd_core.errors.base import ProjectionUnavailable as ProjectionUnavailable
    from lychd_core.errors.base import RevisionMismatchError as RevisionMismatchError
    from lychd_core.errors.base import RolePolicyError as RolePolicyError
    from lychd_core.errors.base import SelectionError as SelectionError
    from lychd_core.errors.base import UnknownPluginError as UnknownPluginError
    from lychd_core.errors.cli import CutInputError as CutInputError
    from lychd_core.errors.cli import LeaseInputError as LeaseInputError
    from lychd_core.errors.cli import OutputFileError as OutputFileError
    from lychd_core.errors.compression import CompressorFailedError as CompressorFailedError
    from lychd_core.errors.compression import ContentBoundError as ContentBoundError
    from lychd_core.errors.compression import EmptyRangeError as EmptyRangeError
    from lychd_core.errors.compression import ExistingOutputIdError as ExistingOutputIdError
    from lychd_core.errors.compression import GraphDriftError as GraphDriftError
    from lychd_core.errors.compression import HiddenSourceError as HiddenSourceError
    from lychd_core.errors.compression import MalformedProposalError as MalformedProposalError
    from lychd_core.errors.compression import MissingSourceError as MissingSourceError
    from lychd_core.errors.compression import MixedClassesError as MixedClassesError
    from lychd_core.errors.compression import NotSmallerError as NotSmallerError
    from lychd_core.errors.compression import OverlappingRangesError as OverlappingRangesError
    from lychd_core.errors.compression import PolicyMismatchError as PolicyMismatchError
    from lychd_core.errors.compression import ProposalError as ProposalError
    from lychd_core.errors.compression import ProtectedSourceError as ProtectedSourceError
    from lychd_core.errors.compression import RangeBeyondContentError as RangeBeyondContentError
    from lychd_core.errors.compression import RequiredSourceLostError as RequiredSourceLostError
    from lychd_core.errors.compression import SelfSourceCycleError as SelfSourceCycleError
    from lychd_core.errors.compression import SourceDigestMismatchError as SourceDigestMismatchError
    from lychd_core.errors.compression import UnselectedSourceError as UnselectedSourceError
    from lychd_core.errors.graph import AccountingOverflowError as AccountingOverflowError
    from lychd_core.errors.graph import DuplicateNodeError as DuplicateNodeError
    from lychd_core.errors.graph import GraphCycleError as GraphCycleError
    from lychd_core.errors.graph import MissingDependencyError as MissingDependencyError
    from lychd_core.errors.graph import RequiredHiddenError as RequiredHiddenError
    from lychd_core.errors.graph import RequiredOverBudgetError as RequiredOverBudgetError
    from lychd_core.errors.graph import UnknownNodeError as UnknownNodeError
    from lychd_core.errors.memory import CorruptStoreError as CorruptStoreError
    from lychd_core.errors.memory import EmptyScopeError as EmptyScopeError
    from lychd_core.errors.memory import EvidenceConflictError as EvidenceConflictError
    from lychd_core.errors.memory import ForeignDatabaseError as ForeignDatabaseError
    from lychd_core.errors.memory import ForgottenMemoryError as ForgottenMemoryError
    from lychd_core.errors.memory import InvalidExpiryError as InvalidExpiryError
    from lychd_core.errors.memory import InvalidQueryError as InvalidQueryError
    from lychd_core.errors.memory import InvalidRevisionError as InvalidRevisionError
    from lychd_core.errors.memory import InvalidTransitionError as InvalidTransitionError
    from lychd_core.errors.memory import MissingSourceEventError as MissingSourceEventError
    from lychd_core.errors.memory import NonCanonicalError as NonCanonicalError
    from lychd_core.errors.memory import RecallRefusedError as RecallRefusedError
    from lychd_core.errors.memory import RefusalReason as RefusalReason
    from lychd_core.errors.memory import ReleaseWithoutReviewError as ReleaseWithoutReviewError
    from lychd_core.errors.memory import RevisionConflictError as RevisionConflictError
    from lychd_core.errors.memory import RevisionRegressionError as RevisionRegressionError
    from lychd_core.errors.memory import ScoreOutOfRangeError as ScoreOutOfRangeError
    from lychd_core.errors.memory import StaleObservationError as StaleObservationError
    from lychd_core.errors.memory import StoreClosedError as StoreClosedError
    from lychd_core.errors.memory import StoreConnectionError as StoreConnectionError
    from lychd_core.errors.memory import StoreCopyError as StoreCopyError
    from lychd_core.errors.memory import StoreLockedError as StoreLockedError
    from lychd_core.errors.memory import StoreMissingError as StoreMissingError
    from lychd_core.errors.memory import StoreVersionError as StoreVersionError
    from lychd_core.errors.memory import TerminalStateError as TerminalStateError
    from lychd_core.errors.memory import TombstoneMismatchError as TombstoneMismatchError
    from lychd_core.errors.memory import UnknownClaimTypeError as UnknownClaimTypeError
    from lychd_core.errors.memory import UnknownMemoryError as UnknownMemoryError
    from lychd_core.errors.privacy import CutReason as CutReason
    from lychd_core.errors.privacy import CutRefused as CutRefused
    from lychd_core.errors.privacy import DisclosurePlanError as DisclosurePlanError
    from lychd_core.errors.privacy import EgressRefused as EgressRefused
    from lychd_core.errors.privacy import ReceiptError as ReceiptError
    from lychd_core.errors.privacy import SealReason as SealReason
    from lychd_core.errors.privacy import SealRefused as SealRefused
    from lychd_core.errors.privacy import UnknownContributorError as UnknownContributorError
    from lychd_core.errors.privacy import UnknownTargetError as UnknownTargetError
    from lychd_core.errors.privacy import VocabularyError as VocabularyError
    from lychd_core.errors.projection import CachePruneInputError as CachePruneInputError
    from lychd_core.errors.projection import DigestMismatchError as DigestMismatchError
    from lychd_core.errors.projection import MaterialNotFoundError as MaterialNotFoundError
    from lychd_core.errors.projection import MaterialPermissionError as MaterialPermissionError
    from lychd_core.errors.projection import MaterialRefError as MaterialRefError
    from lychd_core.errors.projection import MaterialScopeError as MaterialScopeError
    from lychd_core.errors.projection import MaterialTooLargeError as MaterialTooLargeError
    from lychd_core.errors.projection import ProfileMismatchError as ProfileMismatchError
    from lychd_core.errors.projection import ReadOnlyCacheError as ReadOnlyCacheError
    from lychd_core.errors.projection import RequiredMaterialUnavailable as RequiredMaterialUnavailable
    from lychd_core.errors.projection import SpecialFileError as SpecialFileError
    from lychd_core.errors.ranking import InvalidScoreError as InvalidScoreError
    from lychd_core.errors.ranking import RankingError as RankingError
    from lychd_core.errors.ranking import RankingProfileFailed as RankingProfileFailed
    from lychd_core.errors.ranking import RankingQueryError as RankingQueryError
    from lychd_core.errors.ranking import UnknownCandidateError as UnknownCandidateError
    from lychd_core.errors.tokens import CalibrationError as CalibrationError
    from lychd_core.errors.tokens import TokenCountError as TokenCountError
    from lychd_core.errors.vault import ClaimConflict as ClaimConflict
    from lychd_core.errors.vault import DurabilityRefused as DurabilityRefused
    from lychd_core.errors.vault import KeyStoreError as KeyStoreError
    from lychd_core.errors.vault import KeyStoreExposed as KeyStoreExposed
    from lychd_core.errors.vault import KeyStoreMissing as KeyStoreMissing
    from lychd_core.errors.vault import LeaseExpired as LeaseExpired
    from lychd_core.errors.vault import LeaseNotFound as LeaseNotFound
    from lychd_core.errors.vault import LeaseStateError as LeaseStateError
    from lychd_core.errors.vault import LeaseUnrecoverable as LeaseUnrecoverable
    from lychd_core.errors.vault import LockError as LockError
    from lychd_core.errors.vault import MapTooLarge as MapTooLarge
    from lychd_core.errors.vault import NonceReuseError as NonceReuseError
    from lychd_core.errors.vault import RehydratedFlowRefused as RehydratedFlowRefused
    from lychd_core.errors.vault import RehydrationRefused as RehydrationRefused
    from lychd_core.errors.vault import RejectReason as RejectReason
    from lychd_core.errors.vault import ReversibleCutsDisabled as ReversibleCutsDisabled
    from lychd_core.errors.vault import VaultError as VaultError
    from lychd_core.errors.vault import VaultInputError as VaultInputError
    from lychd_core.errors.vault import VaultIntegrityError as VaultIntegrityError
    from lychd_core.errors.vault import VaultLockedError as VaultLockedError
    from lychd_core.errors.vault import VaultStoreError as VaultStoreError

_EXPORTS = {
    "lychd_core.errors.base": (
        "LychdError PluginError PluginLoadError PluginValidationError DuplicatePluginError PluginCallError "
        "PluginTimeoutError UnknownPluginError RevisionMismatchError BlockError ConfigError MediaTypeConflictError "
        "MediaTypeError BinaryMaterialError MaterialError ProjectionUnavailable ProjectionCacheError GraphError "
        "BudgetError SelectionError CompactionError RolePolicyError ContextBudgetExceededError AssemblyError "
        "HistoryError LeaseError MemoryRecordError MemoryStoreError PrivacyRefusal"
    ),
    "lychd_core.errors.graph": (
        "RequiredHiddenError RequiredOverBudgetError DuplicateNodeError MissingDependencyError GraphCycleError "
        "UnknownNodeError AccountingOverflowError"
    ),
    "lychd_core.errors.projection": (
        "MaterialScopeError MaterialRefError MaterialNotFoundError SpecialFileError MaterialPermissionError "
        "MaterialTooLargeError DigestMismatchError ProfileMismatchError RequiredMaterialUnavailable ReadOnlyCacheError "
        "CachePruneInputError"
    ),
    "lychd_core.errors.compression": (
        "ProposalError MalformedProposalError PolicyMismatchError SelfSourceCycleError ExistingOutputIdError "
        "MissingSourceError SourceDigestMismatchError RangeBeyondContentError EmptyRangeError OverlappingRangesError "
        "UnselectedSourceError HiddenSourceError ProtectedSourceError MixedClassesError NotSmallerError "
        "ContentBoundError RequiredSourceLostError GraphDriftError CompressorFailedError"
    ),
    "lychd_core.errors.memory": (
        "ScoreOutOfRangeError UnknownClaimTypeError EmptyScopeError MissingSourceEventError NonCanonicalError "
        "EvidenceConflictError StaleObservationError InvalidExpiryError InvalidRevisionError RevisionRegressionError "
        "RevisionConflictError InvalidTransitionError TerminalStateError ReleaseWithoutReviewError "
        "TombstoneMismatchError ForgottenMemoryError UnknownMemoryError InvalidQueryError StoreMissingError "
        "CorruptStoreError ForeignDatabaseError StoreVersionError StoreLockedError StoreClosedError "
        "StoreConnectionError StoreCopyError RecallRefusedError RefusalReason"
    ),
    "lychd_core.errors.privacy": (
        "CutReason SealReason CutRefused SealRefused UnknownTargetError UnknownContributorError DisclosurePlanError "
        "VocabularyError ReceiptError EgressRefused"
    ),
    "lychd_core.errors.vault": (
        "VaultError VaultStoreError KeyStoreError KeyStoreMissing KeyStoreExposed VaultLockedError VaultIntegrityError "
        "NonceReuseError ReversibleCutsDisabled DurabilityRefused LeaseNotFound LeaseStateError LeaseExpired "
        "LeaseUnrecoverable ClaimConflict MapTooLarge RejectReason RehydrationRefused RehydratedFlowRefused "
        "VaultInputError LockError"
    ),
    "lychd_core.errors.ranking": (
        "RankingError RankingProfileFailed InvalidScoreError UnknownCandidateError RankingQueryError"
    ),
    "lychd_core.errors.tokens": "CalibrationError TokenCountError",
    "lychd_core.errors.assembly": "ExecutionProjectionError FloorBlockError RequestInputLimitError",
    "lychd_core.errors.cli": "CutInputError LeaseInputError OutputFileError",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, name, _EXPORTS)


__all__ = sorted({name for names in _EXPORTS.values() for name in names.split()})
