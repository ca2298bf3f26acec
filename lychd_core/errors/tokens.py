"""Token counting and calibration errors."""

from __future__ import annotations

from lychd_core.errors.base import LychdError, PluginCallError


class CalibrationError(LychdError, ValueError):
    """The calibration file is unreadable, altered, or a sample is impossible."""


class TokenCountError(PluginCallError):
    """A token counter raised, or returned something that is not an integer >= 0."""
