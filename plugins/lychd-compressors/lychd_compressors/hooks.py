"""Hook implementations of lychd-compressors (nothing else lives here)."""

from __future__ import annotations

from lychd_compressors.digest import HISTORY_PREFIX_DIGEST
from lychd_compressors.elision import TOOL_OUTPUT_ELISION
from lychd_compressors.structure import VERBATIM_TO_STRUCTURE
from lychd_core.hookspecs import Register, hookimpl


@hookimpl
def lychd_register_compressors(register: Register) -> None:
    register(TOOL_OUTPUT_ELISION)
    register(VERBATIM_TO_STRUCTURE)
    register(HISTORY_PREFIX_DIGEST)
