"""Command-line input errors (files and options that the commands read)."""

from __future__ import annotations

from lychd_core.errors.base import LychdError


class CutInputError(LychdError, ValueError):
    """A cut command's inputs (report, stored chain, format, profile) are unusable."""


class LeaseInputError(LychdError, ValueError):
    """A reversible preparation lacks (or was given unusable) lease inputs."""


class OutputFileError(LychdError, ValueError):
    """``--output FILE`` cannot be written: its folder is missing, or it names a directory or special file."""
