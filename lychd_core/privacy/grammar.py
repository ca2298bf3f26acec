"""Closed record grammars, declared as data, and the verifier's own parser for them.

A record grammar fixes a header line and records of space-separated fields in fixed
positions, each checked against one kind of a closed public vocabulary, followed by
exactly one owner slot (``owner=<value>``) — the only place a sensitive span may
stand. Every character of the text belongs to the header, a separator, a listed
item, the slot prefix, or the owner value. A privacy profile declares its grammar;
the verifier here parses it independently of the profile's censor.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import InitVar, dataclass, field
from functools import cached_property
from operator import itemgetter
from typing import TypeVar

from lychd_core.errors import CutReason, CutRefused
from lychd_core.privacy.closed_vocabulary import ClosedVocabulary
from lychd_core.privacy.matching import SubstringSet

V = TypeVar("V")
MAX_RECORDS = 1_000_000
"""Most records one text may hold (the pip-audit importer's bound too)."""
_WINDOW_CHARS = 1 << 16
"""Characters of a text redacted at once when a redaction is only compared."""


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One fixed position: its name, the vocabulary kind it draws from, whether '-' may stand."""

    name: str
    kind: str
    optional: bool = False
    invariant: str = ""
    """The plan's semantic invariant this position carries (``dependencies``, ...)."""


@dataclass(frozen=True)
class RecordGrammar:
    """A closed grammar: header, fixed vocabulary positions, one owner slot, its redaction."""

    name: str
    fields: tuple[FieldSpec, ...]
    owner_prefix: str = "owner="
    owner_category: str = "owner"
    owner_pattern: str = r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"
    redaction: str = "<redacted>"
    separator: str = " "
    none: str = "-"

    @property
    def header(self) -> str:
        return self.name

    @cached_property
    def owner_re(self) -> re.Pattern[str]:
        return re.compile(self.owner_pattern)

    @cached_property
    def record_re(self) -> re.Pattern[str]:
        """One whole record line: a group per fixed position, then the owner value."""
        field = f"([^{re.escape(self.separator)}\\n]+)"
        fixed = re.escape(self.separator).join([field] * len(self.fields))
        return re.compile(f"^{fixed}{re.escape(self.separator + self.owner_prefix)}([^\\n]*)$", re.MULTILINE)

    @cached_property
    def slot_re(self) -> re.Pattern[str]:
        """The owner slot to the end of its line (each record line has exactly one)."""
        return re.compile(re.escape(self.separator + self.owner_prefix) + "[^\\n]*$", re.MULTILINE)

    def redacted(self, text: str) -> str:
        """``text`` with every owner value replaced by the redaction."""
        return self.slot_re.sub(self.separator + self.owner_prefix + self.redaction, text)

    def redacts_to(self, text: str, candidate: str) -> bool:
        """Whether ``candidate == self.redacted(text)``, compared a window of whole lines at a time
        (redaction is line by line), so no copy of a 10 MB text is built only to be compared."""
        done = at = 0
        while done < len(text):
            end = text.find("\n", done + _WINDOW_CHARS)
            end = len(text) if end < 0 else end + 1
            part = self.redacted(text[done:end])
            if not candidate.startswith(part, at):
                return False
            done, at = end, at + len(part)
        return at == len(candidate)


@dataclass(frozen=True, slots=True)
class ParsedText:
    """One text's records (each: its fixed positions, then the owner value) and every public item."""

    records: tuple[tuple[str, ...], ...]
    items: frozenset[str] = frozenset()
    known_owners: InitVar[frozenset[str] | None] = None
    """The parser's own set of the owner values, so it is not built twice (else derived here)."""
    owners: frozenset[str] = field(init=False, repr=False, compare=False)
    """The distinct owner values."""

    def __post_init__(self, known_owners: frozenset[str] | None) -> None:
        owners = frozenset(map(itemgetter(-1), self.records)) if known_owners is None else known_owners
        object.__setattr__(self, "owners", owners)

    @property
    def columns(self) -> tuple[tuple[str, ...], ...]:
        """The fixed positions, column by column (what utility compares)."""
        width = len(self.records[0]) - 1 if self.records else 0
        return tuple(tuple(map(itemgetter(i), self.records)) for i in range(width))


def _refuse(reason: CutReason, where: str, what: str) -> CutRefused:
    return CutRefused(reason, f"{where}: {what}")


def _first(values: Sequence[V], bad: Callable[[V], bool], offset: int = 2) -> int:
    """Line number of the first value for which ``bad`` holds (only on the refusal path)."""
    return next(index for index, value in enumerate(values) if bad(value)) + offset


def _first_uncovered(text: str, grammar: RecordGrammar, start: int) -> int:
    """The number of the first line that no record covers (only on the refusal path; nothing copied)."""
    expected, line = start, 2
    for match in grammar.record_re.finditer(text, start):
        if match.start() != expected:
            break
        expected, line = match.end() + 1, line + 1
    return line


def parse_text(
    text: str, grammar: RecordGrammar, vocabulary: ClosedVocabulary, *, where: str, candidate: bool
) -> ParsedText:
    """Parse one text; a candidate's owner slots must hold exactly the redaction.

    One anchored pattern finds every record; the count of records must equal the count
    of lines, so no character is left uncovered. Columns are checked as sets against
    the vocabulary. Refusals name the line and position, never the text that stood there.
    """
    header = grammar.header + "\n"
    if not text.startswith(header) or not text.endswith("\n"):
        expected = f"expected the header line {grammar.header!r} and newline-ended records"
        raise _refuse(CutReason.UNCOVERED_TEXT, where, expected)
    if text.count("\n") - 1 > MAX_RECORDS:
        raise _refuse(CutReason.TOO_LARGE, where, f"more than {MAX_RECORDS} records; the bound is {MAX_RECORDS}")
    records = tuple(grammar.record_re.findall(text, len(header)))
    if len(records) != text.count("\n") - 1:
        line = _first_uncovered(text, grammar, len(header))
        raise _refuse(CutReason.UNCOVERED_TEXT, where, f"line {line} is outside the record grammar")
    items: set[str] = set()
    for index, spec in enumerate(grammar.fields):
        allowed = vocabulary.items(spec.kind) | ({grammar.none} if spec.optional else set())
        present = set(map(itemgetter(index), records))
        if present - allowed:
            _vocabulary_refusal(where, spec, list(map(itemgetter(index), records)), allowed, records, grammar)
        items |= present
    owners = frozenset(map(itemgetter(-1), records))
    if candidate:
        if owners - {grammar.redaction}:
            line = _first(records, lambda r: r[-1] != grammar.redaction)
            raise _refuse(CutReason.RECONSTRUCTION_MISMATCH, where, f"line {line} owner slot is not redacted")
    else:
        if not all(map(grammar.owner_re.fullmatch, owners)):
            line = _first(records, lambda r: not grammar.owner_re.fullmatch(r[-1]))
            raise _refuse(CutReason.UNCOVERED_TEXT, where, f"line {line} owner value is outside the slot grammar")
    return ParsedText(records, frozenset(items - {grammar.none}), owners)


def _vocabulary_refusal(
    where: str,
    spec: FieldSpec,
    column: Sequence[str],
    allowed: frozenset[str] | set[str],
    records: Sequence[tuple[str, ...]],
    grammar: RecordGrammar,
) -> None:
    """Raise for the first line whose value in ``column`` is not listed (an owner value there is named so)."""
    line = _first(column, lambda x: x not in allowed)
    part = column[line - 2]
    owners = {owner for owner in map(itemgetter(-1), records) if grammar.owner_re.fullmatch(owner)}
    if SubstringSet(owners).occurs_in(part):
        what = f"line {line} {spec.name}: an owner value stands outside the owner slot"
        raise _refuse(CutReason.SENSITIVE_OUTSIDE_OWNER_SLOT, where, what)
    raise _refuse(CutReason.UNCOVERED_TEXT, where, f"line {line} {spec.name}: not in the closed vocabulary")


def check_owners(
    parsed: list[ParsedText], grammar: RecordGrammar, vocabulary: ClosedVocabulary, *, where: str = "projection"
) -> frozenset[str]:
    """No owner value is itself a public item or hides inside one (its span would be ambiguous).

    One set intersection and one automaton pass over the items: linear in owners plus items.
    """
    return owner_matcher(parsed, grammar, vocabulary, where=where)[0]


def owner_matcher(
    parsed: list[ParsedText],
    grammar: RecordGrammar,
    vocabulary: ClosedVocabulary,
    *,
    where: str = "projection",
    also: Sequence[str] = (),
) -> tuple[frozenset[str], SubstringSet]:
    """:func:`check_owners`, also returning the owners' automaton for ``also`` (built once, over
    only the owners that fit in the longest string it will search)."""
    owners = parsed[0].owners if len(parsed) == 1 else frozenset().union(*(text.owners for text in parsed))
    tokens = {grammar.header, grammar.owner_prefix, grammar.redaction}.union(*(text.items for text in parsed))
    matcher = SubstringSet(owners, longest_haystack=max(map(len, [*tokens, *also]), default=0))
    if not owners.isdisjoint(vocabulary.all_items()) or matcher.occurs_in_any(tokens):
        raise _refuse(CutReason.AMBIGUOUS_SPAN, where, "an owner value also appears as or inside a public item")
    return owners, matcher
