"""The toy third-party plugin runs the contract kit exactly as a third party would."""

from __future__ import annotations

import pytest
from lychd_toy.plugins import EmailFinder, HeadCompressor, ToyRoles, UpperProfile, WordCount

from lychd_core.testing import (
    CompressorContract,
    PrivacyProfileContract,
    ProjectionProfileContract,
    RankingProfileContract,
    RolePolicyContract,
)


class TestUpperProfile(ProjectionProfileContract):
    @pytest.fixture
    def profile(self) -> UpperProfile:
        return UpperProfile()

    @pytest.fixture
    def sample_bytes(self) -> bytes:
        return b"hello\nworld\n"


class TestHeadCompressor(CompressorContract):
    @pytest.fixture
    def compressor(self) -> HeadCompressor:
        return HeadCompressor()


class TestToyRoles(RolePolicyContract):
    @pytest.fixture
    def policy(self) -> ToyRoles:
        return ToyRoles()


class TestEmailFinder(PrivacyProfileContract):
    @pytest.fixture
    def privacy_profile(self) -> EmailFinder:
        return EmailFinder()


class TestWordCount(RankingProfileContract):
    @pytest.fixture
    def ranking_profile(self) -> WordCount:
        return WordCount()
