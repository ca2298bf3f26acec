"""roles.standard runs the role-policy contract that every third-party policy runs."""

from __future__ import annotations

import pytest
from lychd_roles import StandardRoles

from lychd_core.testing import RolePolicyContract


class TestStandardRoles(RolePolicyContract):
    @pytest.fixture
    def policy(self) -> StandardRoles:
        return StandardRoles()
