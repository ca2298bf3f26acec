"""Gitignore-style globs for ``[[labels]]`` rules, matched in time linear in path x pattern.

A naive translation to a backtracking regex costs ``O(n^k)`` for ``k`` runs of ``*``
(four runs took 34 s per path). Here every choice a wildcard makes is committed once:

- within one name, ``p0*p1*...*pm`` places each middle piece at its leftmost fit inside
  an atomic group (``(?>[^/]*?p)``) and the last piece at the name's end; leftmost is
  optimal because a ``*`` that follows can absorb whatever a later placement would have;
- across names, a ``**`` folder wildcard (any number of whole names) before a group of
  names places that group at its leftmost fit, atomically, for the same reason.

So no position is tried twice for the same wildcard. The regex runs over ``path + "/"``
so each name is followed by ``/``. ``**`` is a folder wildcard only as a whole name
(``a/**/b``, ``**/x``, ``x/**``); inside a name (``a**b``) it is ``*``, as in git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

MAX_GLOB_CHARS = 256
"""Longest ``[[labels]]`` path pattern; matching costs path length x pattern length."""
MAX_GLOB_WILDCARDS = 16
"""Most runs of ``*`` (and ``**`` names) one pattern may hold."""

_GLOBSTAR = None  # a token: zero or more whole names
_STAR_RUN = re.compile(r"\*+")


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` is refused as a label glob (beyond the path rules), or None."""
    if len(pattern) > MAX_GLOB_CHARS:
        return f"has {len(pattern)} characters; at most {MAX_GLOB_CHARS} are allowed"
    runs = len(_STAR_RUN.findall(pattern))
    if runs > MAX_GLOB_WILDCARDS:
        return f"has {runs} runs of '*'; at most {MAX_GLOB_WILDCARDS} are allowed (simplify the pattern)"
    return None


def _name(segment: str) -> str:
    """Regex for one name (no '/'), leftmost-committed pieces between its ``*`` runs."""
    pieces = [re.escape(piece).replace(r"\?", "[^/]") for piece in _STAR_RUN.split(segment)]
    if len(pieces) == 1:
        return pieces[0] + "/"
    middle = "".join(f"(?>[^/]*?{piece})" for piece in pieces[1:-1] if piece)
    last = "[^/]*+/" if not pieces[-1] else f"[^/]*?{pieces[-1]}/"
    return f"{pieces[0]}{middle}(?>{last})"


def _tokens(pattern: str) -> list[str | None]:
    anchored = pattern.startswith("/")
    body = pattern.strip("/")
    segments = body.split("/")
    tokens: list[str | None] = [] if anchored or len(segments) > 1 else [_GLOBSTAR]
    for segment in segments:
        tokens.append(_GLOBSTAR if segment == "**" else _name(segment))
    if tokens[-1] is _GLOBSTAR:  # a trailing '**' needs at least one name below
        tokens.append(_name("*"))
    tokens.append(_GLOBSTAR)  # a match on a folder covers everything under it
    return tokens


def _translate(pattern: str) -> str:
    out: list[str] = []
    group: list[str] = []
    after_globstar = False
    for token in _tokens(pattern):
        if token is _GLOBSTAR:
            out.append(f"(?>(?:[^/]*+/)*?{''.join(group)})" if after_globstar else "".join(group))
            group, after_globstar = [], True
        else:
            group.append(token)
    return "".join(out)  # the last token is always a globstar: whatever follows matches


@dataclass(frozen=True, slots=True)
class LabelGlob:
    """One compiled label glob; :meth:`match` takes a workspace-relative POSIX path."""

    pattern: str
    regex: re.Pattern[str]

    def match(self, path: str) -> bool:
        return self.regex.match(path + "/") is not None


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> LabelGlob:
    """A gitignore-style glob over POSIX relative paths (see the module docstring).

    A pattern without an inner '/' matches a name at any depth; a leading '/' anchors it
    to the workspace root; a match on a folder covers everything under it.
    """
    return LabelGlob(pattern, re.compile(_translate(pattern), re.DOTALL))
