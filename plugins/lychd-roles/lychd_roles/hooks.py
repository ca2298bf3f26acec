"""Hook implementations only."""

from __future__ import annotations

from lychd_core.hookspecs import Register, hookimpl
from lychd_roles.policy import StandardRoles


@hookimpl
def lychd_register_role_policies(register: Register) -> None:
    register(StandardRoles())
