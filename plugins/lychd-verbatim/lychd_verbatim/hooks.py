"""Hook implementations of lychd-verbatim (nothing else lives here)."""

from __future__ import annotations

from lychd_core.hookspecs import Register, hookimpl
from lychd_verbatim.profile import PROFILE


@hookimpl
def lychd_register_projection_profiles(register: Register) -> None:
    register(PROFILE)
