"""The ``roles.standard`` role policy (revision 1)."""

from lychd_roles.policy import PROFILES, RESTRICTED, RoleView, StandardRoles, StandardRolesOptions

__all__ = ["PROFILES", "RESTRICTED", "RoleView", "StandardRoles", "StandardRolesOptions"]
