"""lychd-structure-python: the ``structure.python`` projection profile (libcst outline)."""

from lychd_structure_python.options import StructurePythonOptions
from lychd_structure_python.profile import PROFILE, StructurePythonProfile

__all__ = ["PROFILE", "StructurePythonOptions", "StructurePythonProfile"]
