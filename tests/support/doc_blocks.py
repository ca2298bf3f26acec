"""Fenced code blocks of the Markdown files under ``docs/``, and the rule for which run.

The info string after the opening fence says what a block is; its first word is the
language, later words are flags:

- ``python``: executed. The blocks of one page run in order in one namespace (a page is
  one session), in a scratch copy of ``docs/``, ``profiles/``, ``lychd_core/`` and the README.
- ``toml``: parsed. A lychd configuration fragment must validate merged over the
  embedded default (and check against the installed plugins); ``toml config`` must be a
  whole configuration alone; ``toml <kind>`` (``pyproject``, ``plan``, ``vocabulary``:
  another TOML file) is only parsed.
- ``json``: parsed; ``json rehydration-schema`` must also be a valid ``RehydrationSchema``.
- ``no-run`` (a flag on any language): shown, never executed or parsed — an excerpt, a
  transcript with output, or a command that needs the network or root.
- ``text``, ``console``, ``bash``, ``shell``: never executed (output, diagrams, shell
  transcripts); the commands a page shows are run by the tests named beside them.

A fence with no info string fails the check: each block says which it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
SHOWN_ONLY = frozenset({"text", "console", "bash", "shell", "sh"})


@dataclass(frozen=True)
class DocBlock:
    path: Path
    line: int
    info: tuple[str, ...]
    text: str

    @property
    def language(self) -> str:
        return self.info[0] if self.info else ""

    @property
    def runs(self) -> bool:
        return bool(self.info) and "no-run" not in self.info and self.language not in SHOWN_ONLY

    def where(self) -> str:
        return f"{self.path.relative_to(DOCS.parent)}:{self.line}"


def blocks_of(path: Path) -> list[DocBlock]:
    found: list[DocBlock] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, start, body = opening["fence"], index + 1, []
        index += 1
        while index < len(lines) and not lines[index].startswith(fence):
            body.append(lines[index])
            index += 1
        found.append(DocBlock(path, start, tuple(opening["info"].split()), "\n".join(body) + "\n"))
        index += 1
    return found


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))
