"""The ``symbols`` facts ranking profiles read: names a module defines and names it uses.

Schema (shared with any structure profile that wants ranking to understand it):
``{"defines": [str], "references": [str]}``, each sorted and unique. ``defines`` holds
top-level functions, classes and assigned names, and the members of top-level classes;
``references`` every identifier the source uses (code, strings and comments alike: a
cheap scan, capped), minus keywords and the module's own definitions.
"""

from __future__ import annotations

import keyword
import re
from typing import Any

import libcst as cst

IDENTIFIER = re.compile(r"[^\W\d]\w*")
MAX_REFERENCES = 5_000
_KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | {"self", "cls"}


def symbols_fact(source: str, module: cst.Module, defined_names: list[str]) -> dict[str, Any]:
    defines = set(defined_names)
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            defines.add(stmt.name.value)
        if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            for member in stmt.body.body:
                if isinstance(member, (cst.FunctionDef, cst.ClassDef)):
                    defines.add(member.name.value)
    used = set(IDENTIFIER.findall(source)) - _KEYWORDS - defines
    return {"defines": sorted(defines), "references": sorted(used)[:MAX_REFERENCES]}
