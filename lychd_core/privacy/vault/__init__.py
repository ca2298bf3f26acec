"""The reversible half of the Privacy Cut: an encrypted pseudonym-map vault and its rehydration port."""

from lychd_core.privacy.vault.errors import (
    ClaimConflict,
    DurabilityRefused,
    LeaseExpired,
    LeaseNotFound,
    LeaseStateError,
    LeaseUnrecoverable,
    MapTooLarge,
    NonceReuseError,
    RehydratedFlowRefused,
    RehydrationRefused,
    RejectReason,
    ReversibleCutsDisabled,
    VaultError,
    VaultIntegrityError,
    VaultLockedError,
    VaultStoreError,
)
from lychd_core.privacy.vault.hardening import HardeningCheck, HardeningReport, harden_process, run_checks
from lychd_core.privacy.vault.lease import (
    ClaimRequest,
    CutBinding,
    LeaseGrant,
    LeaseRequest,
    LeaseState,
    LeaseView,
    PseudonymMapLease,
    SensitiveValue,
)
from lychd_core.privacy.vault.port import rehydrate
from lychd_core.privacy.vault.rehydrate import RehydratedResult, RehydrationReceipt, Sink
from lychd_core.privacy.vault.store import Vault, return_digest
from lychd_core.privacy.vault.tokens import MarkedPath, RehydrationSchema

__all__ = [
    "ClaimConflict",
    "ClaimRequest",
    "CutBinding",
    "DurabilityRefused",
    "HardeningCheck",
    "HardeningReport",
    "LeaseExpired",
    "LeaseGrant",
    "LeaseNotFound",
    "LeaseRequest",
    "LeaseState",
    "LeaseStateError",
    "LeaseUnrecoverable",
    "LeaseView",
    "MapTooLarge",
    "MarkedPath",
    "NonceReuseError",
    "PseudonymMapLease",
    "RehydratedFlowRefused",
    "RehydratedResult",
    "RehydrationReceipt",
    "RehydrationRefused",
    "RehydrationSchema",
    "RejectReason",
    "ReversibleCutsDisabled",
    "SensitiveValue",
    "Sink",
    "Vault",
    "VaultError",
    "VaultIntegrityError",
    "VaultLockedError",
    "VaultStoreError",
    "harden_process",
    "rehydrate",
    "return_digest",
    "run_checks",
]
