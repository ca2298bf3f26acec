"""Digest-bound material references and the workspace boundary that reads them.

A :class:`MaterialRef` names one workspace-relative file (or an immutable artifact by
digest) with the content digest the caller expects; it carries no bytes. A
:class:`Workspace` resolves it: relative POSIX paths only, no ``..``, symlinks resolved
and refused when they leave the root, special files refused, the size checked before
reading, and the digest verified, so a changed file refuses instead of projecting new
content. Every refusal is a :class:`~lychd_core.errors.MaterialError` subclass.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lychd_core.digests import is_digest, sha256_digest
from lychd_core.errors import (
    DigestMismatchError,
    MaterialError,
    MaterialNotFoundError,
    MaterialPermissionError,
    MaterialRefError,
    MaterialScopeError,
    MaterialTooLargeError,
    MediaTypeError,
    SpecialFileError,
)
from lychd_core.labels import PrivatizationLabel
from lychd_core.mediatypes import normalize_media_type
from lychd_core.projection.fingerprints import Fingerprint, fingerprint
from lychd_core.projection.media import MediaDecision, detect_media_type

ARTIFACT_PREFIX = "artifact:"
CURRENT_DIGEST_LIMIT = 256 * 1024 * 1024
"""Largest file :meth:`MaterialRef.for_current` will hash when no byte bound is given."""
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
_PIN_RE = re.compile(r"^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*@[1-9][0-9]*$")


def permission_refusal(shown: str, path: Path | str) -> MaterialPermissionError:
    """The refusal for a path this user may not read: names it and the nearest folder that blocks it."""
    blocked = Path(path)
    for folder in reversed(blocked.parents):
        if not os.access(folder, os.R_OK | os.X_OK):
            return MaterialPermissionError(
                f"{shown}: permission denied: the folder {folder} cannot be read or searched by this user; "
                "grant read and search access (chmod u+rx) or leave it out"
            )
    return MaterialPermissionError(f"{shown}: permission denied: this user may not read it (chmod u+r)")


def check_relative_path(path: str) -> tuple[str, ...]:
    """The components of a canonical workspace-relative POSIX path, or a typed refusal."""
    if not path:
        raise MaterialRefError("material path is empty; give a workspace-relative path like 'src/app.py'")
    if "\x00" in path:
        raise MaterialRefError(f"material path {path!r} contains a NUL character")
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        raise MaterialScopeError(f"material path {path!r} is absolute; give a path relative to the workspace root")
    if "\\" in path:
        raise MaterialRefError(f"material path {path!r} contains a backslash; use '/' as the separator")
    parts = tuple(path.split("/"))
    if ".." in parts:
        raise MaterialScopeError(f"material path {path!r} climbs out with '..'; paths stay inside the workspace")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise MaterialRefError(f"material path {path!a} is not valid UTF-8; rename the file") from None
    if _CONTROL_RE.search(path):
        raise MaterialRefError(f"material path {path!a} holds a control character; rename the file")
    if any(part in ("", ".") for part in parts):
        raise MaterialRefError(f"material path {path!r} is not canonical (empty or '.' component); write it plainly")
    return parts


class MaterialRef(BaseModel):
    """An explicit, attributed reference to one material; it carries no bytes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str | None = Field(
        default=None, description="Workspace-relative POSIX path; None for an artifact named by its digest."
    )
    digest: str = Field(description="Expected content digest, 'sha256:<hex>'.")
    required: bool = Field(default=True, description="Whether failing to project this material fails the placement.")
    max_bytes: int | None = Field(default=None, gt=0, description="Byte bound; None takes the config default.")
    max_chars: int | None = Field(default=None, gt=0, description="Character bound; None takes the config default.")
    label: PrivatizationLabel = Field(default_factory=PrivatizationLabel.restricted_unknown)
    lineage: tuple[str, ...] = Field(default=(), description="Caller-supplied lineage tags.")
    profile: str | None = Field(default=None, description="Exact 'name@revision' the rule must select, if given.")
    media_type: str | None = Field(default=None, description="Pinned media type (binary content still refuses).")

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _ref_error(exc) from None

    @classmethod
    def from_json(cls, data: Any) -> MaterialRef:
        """Validate a JSON-like mapping; problems become a typed :class:`MaterialRefError`."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise _ref_error(exc) from None

    @field_validator("digest")
    @classmethod
    def _digest(cls, value: str) -> str:
        if not is_digest(value):
            raise ValueError(f"expected a digest like 'sha256:<64 lowercase hex>', got {value!r}")
        return value

    @field_validator("path")
    @classmethod
    def _path(cls, value: str | None) -> str | None:
        if value is not None:
            check_relative_path(value)
        return value

    @field_validator("profile")
    @classmethod
    def _profile(cls, value: str | None) -> str | None:
        if value is not None and not _PIN_RE.match(value):
            raise ValueError(f"profile pin {value!r} must be exactly 'name@revision', e.g. 'structure.python@1'")
        return value

    @field_validator("media_type")
    @classmethod
    def _media_type(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return normalize_media_type(value)
        except MediaTypeError as exc:
            raise ValueError(str(exc)) from None

    @property
    def source(self) -> str:
        """The path, or ``artifact:<digest>`` for an artifact reference."""
        return self.path if self.path is not None else ARTIFACT_PREFIX + self.digest

    @classmethod
    def for_current(cls, workspace: Workspace, path: str, **fields: Any) -> MaterialRef:
        """A reference pinned to the file's current digest (for tools such as the CLI)."""
        limit = fields.get("max_bytes") or CURRENT_DIGEST_LIMIT
        return cls(path=path, digest=workspace.current_digest(path, limit), **fields)


def _ref_error(exc: ValidationError) -> MaterialError:
    for error in exc.errors():
        cause = error.get("ctx", {}).get("error")
        if isinstance(cause, MaterialError):
            return cause
    problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'ref'}: {e['msg']}" for e in exc.errors())
    return MaterialRefError(f"invalid material reference: {problems}")


@dataclass(frozen=True, slots=True)
class ResolvedMaterial:
    """Verified bytes of one material, with its decided media type."""

    path: str
    data: bytes
    digest: str
    media: MediaDecision


_OPEN_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_OPEN_FILE = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_below(fd: int, parts: tuple[str, ...]) -> int:
    """Open ``parts`` below the directory ``fd`` one component at a time, following no symlink;
    ``fd`` is always closed. Raises ``OSError`` (the callers decide what it means)."""
    try:
        for part in parts[:-1]:
            next_fd = os.open(part, _OPEN_DIR, dir_fd=fd)
            os.close(fd)
            fd = next_fd
        return os.open(parts[-1], _OPEN_FILE, dir_fd=fd)
    finally:
        os.close(fd)


class Workspace:
    """The boundary through which material is read: one root directory (plus an artifact store)."""

    def __init__(self, root: Path | str, artifacts: Path | str | None = None) -> None:
        try:
            self.root = Path(root).resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            raise MaterialNotFoundError(f"workspace root {root} cannot be resolved: {exc}") from None
        if not self.root.is_dir():
            raise SpecialFileError(f"workspace root {self.root} is not a directory")
        self.artifacts = None if artifacts is None else Path(artifacts).resolve()

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    # --- paths -------------------------------------------------------------------

    def relative(self, path: Path | str) -> str:
        """Workspace-relative POSIX form of a filesystem path (absolute or relative to the cwd)."""
        absolute = Path(os.path.abspath(path))
        if absolute != self.root:  # resolve the directories (not the file itself, which may be a symlink)
            try:
                absolute = absolute.parent.resolve() / absolute.name
            except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python 3.11)
                raise MaterialScopeError(f"{path}: its folder cannot be resolved ({exc})") from None
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            raise MaterialScopeError(f"{path} is outside the workspace {self.root}") from None

    def argument(self, raw: str) -> tuple[str, bool]:
        """A command-line PATH as ``(workspace-relative path, walk it as a directory)``.

        One rule for ``lychd project PATH`` and ``lychd assemble --material PATH``: a
        relative PATH is taken against the workspace root (not the current directory),
        an absolute one must lie inside it; ``..`` may not leave it; a symlinked folder
        is refused (walks never follow symlinks); ``"."`` is the root.
        """
        given = Path(raw)
        relative = self.relative(given if given.is_absolute() else self.root / given)
        if relative == ".":
            return relative, True
        target = self.root / relative
        try:
            return self._classify(raw, relative, target)
        except PermissionError:
            raise permission_refusal(raw, target) from None

    def _classify(self, raw: str, relative: str, target: Path) -> tuple[str, bool]:
        if target.is_symlink():
            try:
                is_folder = target.resolve(strict=True).is_dir()
            except (OSError, RuntimeError):
                raise MaterialScopeError(f"{raw}: a dangling symlink or a symlink loop") from None
            if is_folder:
                raise SpecialFileError(f"{raw}: a symlinked folder; lychd does not follow it, name the folder itself")
            return relative, False
        if target.is_dir():
            return relative, True
        if not target.exists():
            raise MaterialNotFoundError(f"{raw}: no such file or directory in the workspace {self.root}")
        return relative, False

    def _resolve(self, path: str) -> tuple[str, ...]:
        """Components of the real path under the root; symlinks may not leave it."""
        parts = check_relative_path(path)
        root = str(self.root)
        try:
            real = os.path.realpath(os.path.join(root, *parts), strict=True)
        except FileNotFoundError:
            raise MaterialNotFoundError(f"{path}: no such file in the workspace {self.root}") from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise MaterialScopeError(f"{path}: symlink loop") from None
            raise MaterialScopeError(f"{path}: cannot be resolved ({exc.strerror or exc})") from None
        if real == root:
            raise SpecialFileError(f"{path}: is the workspace root, not a file")
        inside = root.rstrip(os.sep) + os.sep
        if not real.startswith(inside):
            raise MaterialScopeError(f"{path}: resolves to {real}, outside the workspace {self.root} (symlink)")
        return tuple(real[len(inside) :].split(os.sep))

    def _open_plain(self, path: str) -> int | None:
        """The file opened along its literal path when no component is a symlink, else None.

        Every directory is opened with ``O_NOFOLLOW`` and the file too, and the checked
        path has no ``..``, so a success is inside the root by construction; the caller
        takes the resolving route (:meth:`_resolve`, which permits symlinks that stay
        inside) for anything else, and that route's refusals.
        """
        parts = check_relative_path(path)
        try:
            fd = os.open(self.root, _OPEN_DIR)
        except OSError:
            return None
        try:
            return _open_below(fd, parts)
        except OSError:
            return None

    def _open_path(self, path: str) -> int:
        fd = self._open_plain(path)
        return fd if fd is not None else self._open(self.root, self._resolve(path), path)

    def _open(self, base: Path, parts: tuple[str, ...], shown: str) -> int:
        """Open the file component by component, never following a symlink swapped in meanwhile."""
        fd = os.open(base, _OPEN_DIR)
        try:
            return _open_below(fd, parts)
        except FileNotFoundError:
            raise MaterialNotFoundError(f"{shown}: no such file") from None
        except PermissionError:
            raise permission_refusal(shown, base.joinpath(*parts)) from None
        except OSError as exc:
            raise MaterialScopeError(f"{shown}: changed while being opened ({exc.strerror or exc})") from None

    def _read_fd(self, fd: int, max_bytes: int, shown: str) -> bytes:
        return self._read_fd_stat(fd, max_bytes, shown)[0]

    def _read_fd_stat(self, fd: int, max_bytes: int, shown: str) -> tuple[bytes, os.stat_result]:
        """The bytes and the ``fstat`` taken before reading them (the fingerprint they are recorded under)."""
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                kind = "directory" if stat.S_ISDIR(info.st_mode) else "special file (FIFO, device or socket)"
                raise SpecialFileError(f"{shown}: is a {kind}; only regular files are material")
            if info.st_size > max_bytes:
                raise MaterialTooLargeError(f"{shown}: {info.st_size} bytes, over the bound of {max_bytes}")
            chunks: list[bytes] = []
            size = 0
            while size <= max_bytes:
                chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size > max_bytes:
                raise MaterialTooLargeError(f"{shown}: grew past the bound of {max_bytes} bytes while being read")
            return b"".join(chunks), info
        finally:
            os.close(fd)

    def read_bytes(self, path: str, max_bytes: int) -> bytes:
        """The bytes of a workspace file after every scope, kind and size check (no digest check)."""
        return self._read_fd(self._open_path(path), max_bytes, path)

    def current_digest(self, path: str, max_bytes: int = CURRENT_DIGEST_LIMIT) -> str:
        """Digest of a workspace file's current content."""
        return sha256_digest(self.read_bytes(path, max_bytes))

    # --- artifacts ---------------------------------------------------------------

    def put_artifact(self, data: bytes) -> str:
        """Store immutable bytes in the artifact store; returns their digest."""
        if self.artifacts is None:
            raise MaterialError("this workspace has no artifact store; pass artifacts=DIR to Workspace")
        digest = sha256_digest(data)
        target = self.artifacts / "sha256" / digest.removeprefix("sha256:")
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
            temporary.write_bytes(data)
            temporary.replace(target)
        return digest

    def _read_artifact(self, digest: str, max_bytes: int) -> bytes:
        shown = ARTIFACT_PREFIX + digest
        if self.artifacts is None:
            raise MaterialNotFoundError(f"{shown}: this workspace has no artifact store")
        hexdigest = digest.removeprefix("sha256:")
        return self._read_fd(self._open(self.artifacts, ("sha256", hexdigest), shown), max_bytes, shown)

    # --- references --------------------------------------------------------------

    def read_verified(self, ref: MaterialRef, max_bytes: int) -> tuple[bytes, str]:
        """The referenced bytes and their digest after scope, kind, size and digest checks."""
        data = self._read_artifact(ref.digest, max_bytes) if ref.path is None else self.read_bytes(ref.path, max_bytes)
        return data, self._verify(ref, data)

    @staticmethod
    def _verify(ref: MaterialRef, data: bytes) -> str:
        digest = sha256_digest(data)
        if digest != ref.digest:
            raise DigestMismatchError(
                f"{ref.source}: content digest is {digest}, but the reference expects {ref.digest}; "
                "the material changed since it was referenced (re-reference it to use the new content)"
            )
        return digest

    def read_stamped(self, ref: MaterialRef, max_bytes: int) -> tuple[bytes, str, Fingerprint | None]:
        """:meth:`read_verified`, plus the file's stat fingerprint when it was read (None for artifacts)."""
        if ref.path is None:
            return (*self.read_verified(ref, max_bytes), None)
        data, info = self._read_fd_stat(self._open_path(ref.path), max_bytes, ref.path)
        return data, self._verify(ref, data), fingerprint(info)

    def read(self, ref: MaterialRef, max_bytes: int) -> ResolvedMaterial:
        """Resolve ``ref``: scope, kind, size, digest and media type, or a typed refusal."""
        data, digest = self.read_verified(ref, max_bytes)
        media = detect_media_type(ref.path or "", data, ref.media_type)
        return ResolvedMaterial(ref.source, data, digest, media)
