"""Hook implementations only."""

from __future__ import annotations

from lychd_core.hookspecs import Register, hookimpl
from lychd_ranking.lexical import LexicalProfile
from lychd_ranking.symbol_graph import SymbolGraphProfile


@hookimpl
def lychd_register_ranking_profiles(register: Register) -> None:
    register(LexicalProfile())
    register(SymbolGraphProfile())
