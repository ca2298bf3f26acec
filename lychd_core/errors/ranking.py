"""Typed ranking errors. The assembly turns each into an explained fallback to unranked order."""

from __future__ import annotations

from lychd_core.errors.base import LychdError


class RankingError(LychdError):
    """Ranking could not produce a trustworthy order."""


class RankingProfileFailed(RankingError):
    """A ranking profile raised; names the profile and what it raised."""


class InvalidScoreError(RankingError, ValueError):
    """A profile returned a score that is not an ``int`` in ``[0, MAX_SCORE]``, or a bad reason."""


class UnknownCandidateError(RankingError, LookupError):
    """A profile scored a node id that was not among its candidates."""


class RankingQueryError(RankingError, ValueError):
    """The query cannot rank anything (empty or whitespace only)."""
