"""verbatim honours the projection-profile contract."""

from __future__ import annotations

import pytest
from lychd_verbatim import PROFILE, VerbatimProfile

from lychd_core.testing import ProjectionProfileContract


class TestVerbatimContract(ProjectionProfileContract):
    @pytest.fixture
    def profile(self) -> VerbatimProfile:
        return PROFILE

    @pytest.fixture
    def sample_bytes(self) -> bytes:
        return b'{\n  "name": "lychd",\n  "tags": ["context", "bounded"]\n}\n'


def test_identity_is_exact() -> None:
    assert PROFILE.name == "verbatim" and PROFILE.revision == 1
    required = {
        "text/plain", "text/markdown", "text/x-python", "text/x-rst", "application/json", "application/toml",
        "application/yaml", "text/x-shellscript", "text/csv", "text/html", "text/css", "text/javascript",
        "application/xml",
    }  # fmt: skip
    assert required <= PROFILE.media_types
