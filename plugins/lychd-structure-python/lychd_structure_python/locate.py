"""Source line numbers for the few statements an outline names, without PositionProvider.

libcst's ``PositionProvider`` computes a range for every node (about 5x a bare parse).
The outline needs one line per located statement, so there are two cheaper roads:

* **Fast**: libcst's code generation round-trips the source exactly, so a statement's
  key line (``def``/``class``/``if``/``try`` keyword, or a simple statement's first
  line) starts, at a line start, with text rebuilt from the node itself: its absolute
  indentation plus its keyword, whitespace and name. Within the statement sequence's
  line range every real statement is therefore a candidate; when each distinct prefix
  has exactly as many candidate lines as statements, there is no stray candidate (for
  example inside a string) and the i-th candidate is the i-th statement.
* **Exact**: otherwise, one code generation pass over the module counts line breaks in
  the emitted tokens and records the line at which each located statement's keyword
  (or first token) is emitted.

Both roads give the line the ``ast`` module reports as ``lineno``.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState

_LINE_WORD = re.compile(r"^([ \t]*)([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(eq=False)
class Target:
    """One statement whose key line the outline needs."""

    node: cst.CSTNode
    indent: str
    prefix: str | None
    """Text the key line starts with (indentation included); None when it cannot be rebuilt."""
    whole_line: bool
    """Whether ``prefix`` is the entire line (simple statements) or needs an identifier boundary."""
    keyword: str | None
    """For compound statements: the first keyword token emitted on the key line."""
    anchor: cst.CSTNode | None = None
    """For simple statements: the first small statement, emitted first on the key line."""
    line: int = 0


@dataclass(eq=False)
class Sequence_:
    """Statements of one body (or of all branches of an if/try), in source order."""

    targets: list[Target] = field(default_factory=list)
    children: list[tuple[Target, Sequence_]] = field(default_factory=list)


class SourceLines:
    """Line index of one source text (line breaks as Python counts them)."""

    def __init__(self, source: str) -> None:
        if "\r" in source:
            source = _BREAK.sub("\n", source)
        self.text = source
        self.lines = source.split("\n")
        self._index: dict[tuple[str, str], list[int]] | None = None

    @property
    def count(self) -> int:
        return len(self.lines)

    def index(self) -> dict[tuple[str, str], list[int]]:
        """(indentation, first word) -> line numbers, ascending."""
        if self._index is None:
            starts: list[int] = []
            offset = 0
            for line in self.lines:
                starts.append(offset)
                offset += len(line) + 1
            index: dict[tuple[str, str], list[int]] = {}
            for match in _LINE_WORD.finditer(self.text):
                line_number = bisect_left(starts, match.start()) + 1
                index.setdefault((match.group(1), match.group(2)), []).append(line_number)
            self._index = index
        return self._index


def _is_name_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _candidates(lines: SourceLines, target: Target, low: int, high: int) -> list[int] | None:
    prefix = target.prefix
    if prefix is None or "\n" in prefix or "\r" in prefix:
        return None
    stripped = prefix[len(target.indent) :]
    word = re.match(r"[A-Za-z_][A-Za-z0-9_]*", stripped)
    if word is None:
        return None
    numbers = lines.index().get((target.indent, word.group(0)), [])
    found: list[int] = []
    for number in numbers[bisect_left(numbers, low) : bisect_left(numbers, high)]:
        text = lines.lines[number - 1]
        if target.whole_line:
            if text == prefix:
                found.append(number)
        elif text.startswith(prefix) and not (
            _is_name_char(prefix[-1]) and len(text) > len(prefix) and _is_name_char(text[len(prefix)])
        ):
            found.append(number)
    return found


def locate_fast(lines: SourceLines, sequence: Sequence_, low: int, high: int) -> bool:
    """Assign lines to every target of ``sequence`` (recursively); False when not provable."""
    groups: dict[tuple[str | None, bool], list[Target]] = {}
    for target in sequence.targets:
        groups.setdefault((target.prefix, target.whole_line), []).append(target)
    for members in groups.values():
        found = _candidates(lines, members[0], low, high)
        if found is None or len(found) != len(members):
            return False
        for target, number in zip(members, found, strict=True):
            target.line = number
    targets = sequence.targets
    if any(earlier.line >= later.line for earlier, later in itertools.pairwise(targets)):
        return False  # candidates out of statement order: something matched that should not have
    next_line = {id(t): (targets[i + 1].line if i + 1 < len(targets) else high) for i, t in enumerate(targets)}
    return all(locate_fast(lines, child, owner.line, next_line[id(owner)]) for owner, child in sequence.children)


class _LineTrackingState(CodegenState):
    """A codegen state that counts emitted line breaks and records key lines."""

    def __init__(self, module: cst.Module, keywords: dict[int, Target], anchors: dict[int, Target]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self._keywords = keywords
        self._anchors = anchors
        self._pending: list[Target] = []
        self._line = 1

    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        keyword_target = self._keywords.get(key)
        if keyword_target is not None and keyword_target.node is node:
            self._pending.append(keyword_target)
        anchor_target = self._anchors.get(key)
        if anchor_target is not None and anchor_target.anchor is node:
            anchor_target.line = self._line

    def add_token(self, value: str) -> None:
        if self._pending and self._pending[-1].keyword == value:
            self._pending.pop().line = self._line
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            self._line += value.count("\n") + value.count("\r") - value.count("\r\n")


def locate_exact(module: cst.Module, targets: Sequence[Target]) -> None:
    """Assign lines to ``targets`` with one line-counting code generation pass."""
    keywords = {id(t.node): t for t in targets if t.keyword is not None}
    anchors = {id(t.anchor): t for t in targets if t.anchor is not None}
    state = _LineTrackingState(module, keywords, anchors)
    module._codegen(state)


def all_targets(sequence: Sequence_) -> list[Target]:
    found = list(sequence.targets)
    for _, child in sequence.children:
        found.extend(all_targets(child))
    return found


def locate(module: cst.Module, source: str, root: Sequence_) -> str:
    """Assign a line to every target under ``root``; returns which road was taken."""
    lines = SourceLines(source)
    if locate_fast(lines, root, 1, lines.count + 1):
        return "fast"
    locate_exact(module, all_targets(root))
    return "exact"
