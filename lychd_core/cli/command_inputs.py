"""What ``lychd assemble`` and ``lychd rank`` read from their arguments: material paths
(a named file is required, a walked directory's files optional) and message files."""

from __future__ import annotations

from typing import Any

from lychd_core.assembly import Unexplained
from lychd_core.errors import AssemblyError, MaterialError
from lychd_core.inputs import parse_json, read_input_bytes
from lychd_core.projection.cache_protocol import ProjectionCacheStore
from lychd_core.projection.current import current_refs
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.walk import walk_files

MAX_MESSAGES_BYTES = 256 * 1024 * 1024


def read_messages(path: str | None, what: str) -> list[Any]:
    if path is None:
        return []
    text = read_input_bytes(path, what=f"--{what}", max_bytes=MAX_MESSAGES_BYTES, error=AssemblyError)
    value = parse_json(text, source=f"--{what} {path}", error=AssemblyError)
    if not isinstance(value, list):
        raise AssemblyError(f"--{what} {path}: expected a JSON list of messages, got {type(value).__name__}")
    return value


def material_refs(
    workspace: Workspace, paths: list[str], cache: ProjectionCacheStore | None = None
) -> tuple[list[MaterialRef], list[Unexplained]]:
    """A named file is required (any refusal stops the run); a file found by walking a
    directory is optional, and one that cannot be referenced is reported, not fatal."""
    refs: list[MaterialRef] = []
    skipped: list[Unexplained] = []
    for raw in paths:
        relative, is_dir = workspace.argument(raw)
        if not is_dir:
            refs.append(MaterialRef.for_current(workspace, relative, required=True))
            continue
        walked = walk_files(workspace.root / relative, workspace.root)
        skipped += [Unexplained(path, f"unreadable directory: {reason}") for path, reason in walked.unreadable]
        skipped += [Unexplained(path, reason) for path, reason in walked.refused]
        files = list(walked.files)
        for file, found in zip(files, current_refs(workspace, cache, files, required=False), strict=True):
            if isinstance(found, MaterialError):  # unchanged recorded files are not re-read to be referenced
                skipped.append(Unexplained(file, f"{type(found).__name__}: {found}"))
            else:
                refs.append(found)
    return refs, skipped
