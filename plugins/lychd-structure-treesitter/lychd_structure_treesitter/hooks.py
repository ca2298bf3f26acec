"""Hook implementations of lychd-structure-treesitter (nothing else lives here)."""

from __future__ import annotations

from lychd_core.hookspecs import Register, hookimpl
from lychd_structure_treesitter.profile import PROFILES


@hookimpl
def lychd_register_projection_profiles(register: Register) -> None:
    for profile in PROFILES:
        register(profile)
