"""Contract test suites that every lychd plugin runs, first- or third-party.

Subclass the family's contract and override its fixture::

    from lychd_core.testing import ProjectionProfileContract

    class TestIpynb(ProjectionProfileContract):
        @pytest.fixture
        def profile(self):
            return IpynbProfile()

Test names are public API: they only ever gain tests, never change meaning.
"""

from lychd_core.testing.contracts import (
    CompressorContract,
    PrivacyProfileContract,
    ProjectionProfileContract,
    RolePolicyContract,
)
from lychd_core.testing.ranking_contract import RankingProfileContract
from lychd_core.testing.token_contract import TokenCounterContract

__all__ = [
    "CompressorContract",
    "PrivacyProfileContract",
    "ProjectionProfileContract",
    "RankingProfileContract",
    "RolePolicyContract",
    "TokenCounterContract",
]
