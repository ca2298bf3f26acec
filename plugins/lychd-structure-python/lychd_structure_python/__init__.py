"""lychd-structure-python: the ``structure.python`` projection profile (libcst outline).

The names below are loaded on first use, so the parser worker process, which imports
only this package's outline modules, never imports pydantic or the core (issue 30).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lychd_structure_python.options import StructurePythonOptions
    from lychd_structure_python.profile import PROFILE, StructurePythonProfile

__all__ = ["PROFILE", "StructurePythonOptions", "StructurePythonProfile"]


def __getattr__(name: str) -> object:
    if name == "StructurePythonOptions":
        from lychd_structure_python import options

        return options.StructurePythonOptions
    if name in ("PROFILE", "StructurePythonProfile"):
        from lychd_structure_python import profile

        return getattr(profile, name)
    raise AttributeError(f"module 'lychd_structure_python' has no attribute {name!r}")
