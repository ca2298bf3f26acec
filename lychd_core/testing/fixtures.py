"""Shared pytest fixtures, loaded through the ``pytest11`` entry point."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from lychd_core.registry import Registry, get_registry
from lychd_core.testing.postgres import PostgresServer, PostgresUnavailable, preflight


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


def pytest_collection_finish(session: pytest.Session) -> None:
    """One clear message, before any test runs, when the selected tests need a PostgreSQL server
    that cannot be started here (instead of the same setup error once per test)."""
    if os.environ.get("LYCHD_SKIP_POSTGRESQL") == "1":
        return
    if not any("lychd_postgresql" in getattr(item, "fixturenames", ()) for item in session.items):
        return
    problem = preflight()
    if problem is not None:
        pytest.exit(f"the selected tests need a PostgreSQL server: {problem}", returncode=pytest.ExitCode.USAGE_ERROR)


@pytest.fixture(scope="session")
def lychd_postgresql() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL cluster for the session.

    Fails (with how to install a server) when none can be started, unless
    ``LYCHD_SKIP_POSTGRESQL=1`` is set, which skips instead: for developers only.
    """
    try:
        server = PostgresServer().start()
    except PostgresUnavailable as exc:
        if os.environ.get("LYCHD_SKIP_POSTGRESQL") == "1":
            pytest.skip(f"LYCHD_SKIP_POSTGRESQL=1: {str(exc).splitlines()[0]}")
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server
    finally:
        server.destroy()


_schemas = itertools.count()


@pytest.fixture
def lychd_pg_schema() -> str:
    """A database schema name no other test in this session uses (each is a separate store)."""
    return f"t{os.getpid()}_{next(_schemas)}"
