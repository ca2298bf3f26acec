"""Hook implementations of lychd-closed-diagnostic (nothing else lives here)."""

from __future__ import annotations

from lychd_closed_diagnostic.profile import PROFILE
from lychd_closed_diagnostic.reversible import REVERSIBLE_PROFILE
from lychd_core.hookspecs import Register, hookimpl


@hookimpl
def lychd_register_privacy_profiles(register: Register) -> None:
    register(PROFILE)
    register(REVERSIBLE_PROFILE)
