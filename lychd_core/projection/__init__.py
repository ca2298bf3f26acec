"""Material projection: references, media types, walking, the projector, its worker pool and cache."""

from lychd_core.projection.cache import CacheKey, ProjectionCache
from lychd_core.projection.materials import MaterialRef, ResolvedMaterial, Workspace
from lychd_core.projection.media import MediaDecision, detect_media_type
from lychd_core.projection.projector import Contribution, Projector, RequiredMaterialUnavailable
from lychd_core.projection.walk import walk_files

__all__ = [
    "CacheKey",
    "Contribution",
    "MaterialRef",
    "MediaDecision",
    "ProjectionCache",
    "Projector",
    "RequiredMaterialUnavailable",
    "ResolvedMaterial",
    "Workspace",
    "detect_media_type",
    "walk_files",
]
