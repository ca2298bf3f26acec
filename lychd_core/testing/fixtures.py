"""Shared pytest fixtures, loaded through the ``pytest11`` entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from lychd_core.registry import Registry, get_registry


@pytest.fixture
def lychd_registry() -> Registry:
    """The registry over every installed plugin."""
    return get_registry()


@pytest.fixture
def lychd_workspace(tmp_path: Path) -> Path:
    """An empty workspace directory with a state directory beside nothing else."""
    root = tmp_path / "workspace"
    root.mkdir()
    return root
