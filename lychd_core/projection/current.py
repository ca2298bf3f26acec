"""References pinned to files' current digests, without re-reading files their records vouch for.

``MaterialRef.for_current`` reads and hashes a file to pin its digest; a tool that
references a whole tree on every run (``lychd project DIR``, ``lychd assemble
--material DIR``) would then read every file twice, once to reference it and once to
project it. :func:`current_refs` takes the digest from the cache's file record instead
when the file's stat fingerprint matches the record (the same proof the projector uses,
see :mod:`lychd_core.projection.fingerprints`), and reads and hashes only the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lychd_core.errors import MaterialError
from lychd_core.projection.cache_protocol import ProjectionCacheStore
from lychd_core.projection.fingerprints import StatProbe, machine_scope
from lychd_core.projection.materials import CURRENT_DIGEST_LIMIT, MaterialRef, Workspace, check_relative_path

__all__ = ["current_refs"]


def current_refs(
    workspace: Workspace, cache: ProjectionCacheStore | None, paths: Sequence[str], **fields: Any
) -> list[MaterialRef | MaterialError]:
    """For each path, a reference pinned to its current digest (``fields`` as for ``for_current``), or the refusal."""
    recorded: dict[str, str] = {}
    if cache is not None and paths:
        probe = StatProbe(str(workspace.root))
        limit = fields.get("max_bytes") or CURRENT_DIGEST_LIMIT
        stamps = {}
        for path in paths:
            try:
                check_relative_path(path)
            except MaterialError:
                continue  # refused below, by for_current, with its own message
            stamp = probe(path, limit)
            if stamp is not None:
                stamps[path] = stamp
        records = cache.files(machine_scope(str(workspace.root)), list(stamps))
        recorded = {path: record.digest for path, record in records.items() if record.stamp == stamps.get(path)}
    found: list[MaterialRef | MaterialError] = []
    for path in paths:
        try:
            digest = recorded.get(path)
            if digest is not None:
                found.append(MaterialRef(path=path, digest=digest, **fields))
            else:
                found.append(MaterialRef.for_current(workspace, path, **fields))
        except MaterialError as exc:
            found.append(exc)
    return found
