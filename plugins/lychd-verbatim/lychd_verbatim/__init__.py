"""lychd-verbatim: the ``verbatim`` projection profile (exact decoded text with line provenance)."""

from lychd_verbatim.profile import PROFILE, VerbatimOptions, VerbatimProfile

__all__ = ["PROFILE", "VerbatimOptions", "VerbatimProfile"]
