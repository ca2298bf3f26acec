"""Material projection: references, media types, walking, the projector, its worker pool, cache keys.

The cache contract is :mod:`lychd_core.projection.cache_protocol`; its backends (SQLite,
PostgreSQL) live in :mod:`lychd_core.stores`.
"""

from lychd_core.projection.cache_entries import CacheKey
from lychd_core.projection.cache_protocol import ProjectionCacheStore
from lychd_core.projection.materials import MaterialRef, ResolvedMaterial, Workspace
from lychd_core.projection.media import MediaDecision, detect_media_type
from lychd_core.projection.projector import Contribution, Projector, RequiredMaterialUnavailable
from lychd_core.projection.walk import walk_files

__all__ = [
    "CacheKey",
    "Contribution",
    "MaterialRef",
    "MediaDecision",
    "ProjectionCacheStore",
    "Projector",
    "RequiredMaterialUnavailable",
    "ResolvedMaterial",
    "Workspace",
    "detect_media_type",
    "walk_files",
]
