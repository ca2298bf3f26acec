"""Typed errors of the pseudonym-map vault. Messages never carry map values or keys."""

from __future__ import annotations

from enum import Enum

from lychd_core.errors.base import LychdError


class VaultError(LychdError):
    """Base of every vault refusal."""


class VaultStoreError(VaultError, OSError):
    """The vault or its key store cannot be opened, read or written."""


class KeyStoreError(VaultStoreError):
    """The key store cannot be used as it is; it was left untouched, never recreated."""


class KeyStoreMissing(KeyStoreError, FileNotFoundError):
    """The vault exists but its key store does not: every lease's keys would be lost."""


class KeyStoreExposed(KeyStoreError, PermissionError):
    """The key store (or its folder) is reachable by someone other than its owner, or owned by another user."""


class VaultLockedError(VaultStoreError):
    """Another writer held the vault past the busy timeout; nothing was written."""


class VaultIntegrityError(VaultError, ValueError):
    """Stored bytes failed authentication (tampered, swapped, truncated); never served."""


class NonceReuseError(VaultError, ValueError):
    """A nonce was about to be used a second time; nothing was encrypted or written."""


class ReversibleCutsDisabled(VaultError, PermissionError):
    """The hardening profile could not be proven; only irreversible cuts may be used."""


class DurabilityRefused(VaultError, ValueError):
    """The lease cannot outlive the remote deadline and return window: stay local or cut irreversibly."""


class LeaseNotFound(VaultError, LookupError):
    """No lease with this id (never created, or a different vault)."""


class LeaseStateError(VaultError, ValueError):
    """The lease is not in a state that allows this transition."""


class LeaseExpired(LeaseStateError):
    """The lease passed its expiry; it was moved to EXPIRED and its key destroyed."""


class LeaseUnrecoverable(VaultError, LookupError):
    """The lease's key material is gone (erased, or a restored backup); nothing can be decrypted."""


class ClaimConflict(VaultError, PermissionError):
    """The lease was already claimed by a different principal, run, attempt, station or return."""


class MapTooLarge(VaultError, ValueError):
    """The pseudonym map exceeds the locked-buffer bound."""


class RejectReason(Enum):
    """Why the rehydration port refused a quarantined return."""

    INVENTED_OR_ALTERED = "invented-or-altered"
    CROSS_NAMESPACE = "cross-namespace"
    CROSS_CATEGORY = "cross-category"
    WRONG_PATH = "wrong-path"
    OVER_CARDINALITY = "over-cardinality"
    NOT_DISCLOSED = "not-disclosed"
    REPLAYED = "replayed"
    RETURN_MISMATCH = "return-mismatch"
    SCHEMA_MISMATCH = "schema-mismatch"
    VALIDATION_FAILED = "validation-failed"


class RehydrationRefused(VaultError, ValueError):
    """The return was refused; the lease is revoked (or already terminal) and nothing was restored."""

    def __init__(self, reason: RejectReason, path: str, detail: str) -> None:
        super().__init__(f"rehydration refused ({reason.value}) at {path or '$'}: {detail}")
        self.reason = reason
        self.path = path


class RehydratedFlowRefused(VaultError, PermissionError):
    """A rehydrated result was offered to a sink it may never reach (executable, effect, public, remote)."""


class VaultInputError(VaultError, ValueError):
    """A file or argument given to the vault is unreadable or malformed."""


class LockError(VaultError, OSError):
    """A buffer could not be locked in memory (RLIMIT_MEMLOCK, or no mlock on this platform)."""
