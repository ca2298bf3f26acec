"""lychd-structure-treesitter: tree-sitter structure outlines of JavaScript, TypeScript/TSX, Go, Rust and Java."""

from lychd_structure_treesitter.options import StructureTreeSitterOptions
from lychd_structure_treesitter.profile import PROFILES, TreeSitterProfile

__all__ = ["PROFILES", "StructureTreeSitterOptions", "TreeSitterProfile"]
