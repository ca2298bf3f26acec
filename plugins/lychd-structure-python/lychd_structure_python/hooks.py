"""Hook implementations of lychd-structure-python (nothing else lives here)."""

from __future__ import annotations

from lychd_core.hookspecs import Register, hookimpl
from lychd_structure_python.profile import PROFILE


@hookimpl
def lychd_register_projection_profiles(register: Register) -> None:
    register(PROFILE)
