"""structure.python honours the projection-profile contract."""

from __future__ import annotations

import pytest
from lychd_structure_python import PROFILE, StructurePythonProfile

from lychd_core.testing import ProjectionProfileContract

SAMPLE = b'''"""Greetings."""

import os
from typing import Any

__all__ = ["greet", "Greeter"]


def greet(name: str, *, loud: bool = False) -> str:
    return ("HI " if loud else "hi ") + name


class Greeter(object):
    prefix: str = "hi"

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    async def greet(self, name: str) -> str:
        return self.prefix + name
'''


class TestStructurePythonContract(ProjectionProfileContract):
    @pytest.fixture
    def profile(self) -> StructurePythonProfile:
        return PROFILE

    @pytest.fixture
    def sample_bytes(self) -> bytes:
        return SAMPLE


def test_identity_is_exact() -> None:
    assert PROFILE.name == "structure.python"
    assert PROFILE.revision == 1
    assert PROFILE.media_types == frozenset({"text/x-python"})
    assert PROFILE.parser_version.startswith("libcst ")
