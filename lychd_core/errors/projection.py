"""Material and projection errors: references that cannot be resolved safely, profiles that do not match."""

from __future__ import annotations

from lychd_core.errors.base import LychdError, MaterialError, ProjectionCacheError, ProjectionUnavailable


class MaterialScopeError(MaterialError):
    """The reference points outside the workspace (absolute, ``..``, symlink escape): always raised."""


class MaterialRefError(MaterialError):
    """A material reference is malformed (bad digest, path syntax, pin or bound)."""


class MaterialNotFoundError(MaterialError):
    """The referenced file or artifact does not exist."""


class SpecialFileError(MaterialError):
    """The path is a directory, FIFO, device, socket or other non-regular file."""


class MaterialPermissionError(MaterialError, PermissionError):
    """The file, or a folder on its path, may not be read or searched by this user."""


class MaterialTooLargeError(MaterialError):
    """The material is over its byte bound; it was not read."""


class DigestMismatchError(MaterialError):
    """The material's content differs from the digest the reference expects."""


class ProfileMismatchError(MaterialError):
    """The reference names a ``profile@revision`` other than the one its media type's rule selects."""


class RequiredMaterialUnavailable(ProjectionUnavailable):
    """A required material's profile could not project it; never replaced by full text."""

    def __init__(self, source: str, profile: str, reason: str) -> None:
        super().__init__(f"{source}: required material could not be projected by {profile}: {reason}")
        self.source = source
        self.profile = profile
        self.reason = reason


class ReadOnlyCacheError(ProjectionCacheError, PermissionError):
    """The projection cache may not be written by this user or role: ``lychd cache prune`` deletes nothing."""


class CachePruneInputError(LychdError, ValueError):
    """``lychd cache prune`` was given an unusable policy (``--older-than`` not a duration such as ``30d``)."""
