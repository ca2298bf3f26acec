"""First-party ranking profiles: ``lexical`` and ``symbol-graph`` (revision 4)."""

from lychd_ranking.lexical import LexicalProfile
from lychd_ranking.symbol_graph import SymbolGraphProfile

__all__ = ["LexicalProfile", "SymbolGraphProfile"]
