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
from collections.abc import Callable, Iterable, Iterator, Sequence, Set
from dataclasses import InitVar, dataclass, field
from functools import cached_property
from itertools import chain
from operator import itemgetter
from typing import TypeVar, overload

from lychd_core.errors import CutReason, CutRefused
from lychd_core.privacy.closed_vocabulary import ClosedVocabulary
from lychd_core.privacy.matching import SubstringSet

V = TypeVar("V")
MAX_RECORDS = 1_000_000
"""Most records one text may hold (the pip-audit importer's bound too)."""
_WINDOW_CHARS = 1 << 16
"""Characters of a text redacted at once when a redaction is only compared."""
_SCAN_CHARS = 1 << 14
"""Characters of a text parsed at once (whole lines): a window's record tuples are dropped once
counted, so a 10 MB text never holds its 100k records (50 MB of tuples and strings, faulted in and
handed back to the system at every cut, 11k page faults); the distinct values are kept."""


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

    records: Sequence[tuple[str, ...]]
    items: Set[str] = frozenset()
    known_owners: InitVar[Set[str] | None] = None
    """The parser's own set of the owner values, so it is not built twice (else derived here)."""
    owners: Set[str] = field(init=False, repr=False, compare=False)
    """The distinct owner values, in the order they first appear (see :func:`distinct`)."""

    def __post_init__(self, known_owners: Set[str] | None) -> None:
        owners = distinct(map(itemgetter(-1), self.records)) if known_owners is None else known_owners
        object.__setattr__(self, "owners", owners)

    @property
    def columns(self) -> tuple[tuple[str, ...], ...]:
        """The fixed positions, column by column (what utility compares)."""
        width = len(self.records[0]) - 1 if self.records else 0
        return tuple(tuple(map(itemgetter(i), self.records)) for i in range(width))


class _Records(Sequence[tuple[str, ...]]):
    """A text's records, counted by :func:`parse_text` and parsed again only when read (a refusal
    naming its line, a utility comparison): the pass itself keeps only the distinct values."""

    __slots__ = ("_count", "_parsed", "_pattern", "_start", "_text")

    def __init__(self, text: str, pattern: re.Pattern[str], start: int, count: int) -> None:
        self._text, self._pattern, self._start, self._count = text, pattern, start, count
        self._parsed: tuple[tuple[str, ...], ...] | None = None

    def _all(self) -> tuple[tuple[str, ...], ...]:
        if self._parsed is None:
            self._parsed = tuple(self._pattern.findall(self._text, self._start))
        return self._parsed

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> tuple[str, ...]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[str, ...]]: ...
    def __getitem__(self, index: int | slice) -> tuple[str, ...] | Sequence[tuple[str, ...]]:
        return self._all()[index]

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return iter(self._all())

    def __repr__(self) -> str:
        return f"<{self._count} records>"  # never the values: owner values are sensitive


def _scan(text: str, grammar: RecordGrammar, start: int) -> tuple[int, list[set[str]], Set[str]]:
    """The number of records from ``start`` on, each fixed position's distinct values and the
    distinct owner values (see :func:`distinct`), parsed a window of whole lines at a time."""
    findall, size = grammar.record_re.findall, len(text)
    # A record is one line unless a separator or the slot prefix holds a newline: then one window.
    step = size if "\n" in grammar.separator + grammar.owner_prefix else _SCAN_CHARS
    columns: list[set[str]] = [set() for _ in grammar.fields]
    owners: list[str] = []  # deduplicated once at the end: merging a dict per window cost 12% more
    while start < size:
        end = text.find("\n", start + step)
        end = size if end < 0 else end + 1
        records = findall(text, start, end)
        for index, column in enumerate(columns):
            column.update(map(itemgetter(index), records))
        owners.extend(map(itemgetter(-1), records))
        start = end
    return len(owners), columns, distinct(owners)


def distinct(values: Iterable[str]) -> Set[str]:
    """The distinct ``values`` as a set in their order of first appearance (a dict's keys): an owner
    trie built in that order reads the strings in the order they were allocated, not in hash order
    (100k owners of a 10 MB text: 16 ms against 40 ms)."""
    return dict.fromkeys(values).keys()


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
    count, columns, owners = _scan(text, grammar, len(header))
    if count != text.count("\n") - 1:
        line = _first_uncovered(text, grammar, len(header))
        raise _refuse(CutReason.UNCOVERED_TEXT, where, f"line {line} is outside the record grammar")
    records = _Records(text, grammar.record_re, len(header), count)
    for index, (spec, present) in enumerate(zip(grammar.fields, columns, strict=True)):
        allowed = vocabulary.items(spec.kind)  # never copied: a kind can hold 100k items
        if spec.optional:
            present.discard(grammar.none)
        if not present <= allowed:
            allowed = allowed | {grammar.none} if spec.optional else allowed
            _vocabulary_refusal(where, spec, list(map(itemgetter(index), records)), allowed, records, grammar)
    items = max(columns, key=len, default=set())  # the largest column takes in the others: no copy of it
    for present in columns:
        if present is not items:
            items |= present
    items.discard(grammar.none)
    if candidate:
        if owners - {grammar.redaction}:
            line = _first(records, lambda r: r[-1] != grammar.redaction)
            raise _refuse(CutReason.RECONSTRUCTION_MISMATCH, where, f"line {line} owner slot is not redacted")
    else:
        if not all(map(grammar.owner_re.fullmatch, owners)):
            line = _first(records, lambda r: not grammar.owner_re.fullmatch(r[-1]))
            raise _refuse(CutReason.UNCOVERED_TEXT, where, f"line {line} owner value is outside the slot grammar")
    return ParsedText(records, items, owners)


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
    return frozenset(owner_matcher(parsed, grammar, vocabulary, where=where)[0])


def owner_matcher(
    parsed: list[ParsedText],
    grammar: RecordGrammar,
    vocabulary: ClosedVocabulary,
    *,
    where: str = "projection",
    also: Sequence[str] = (),
) -> tuple[Set[str], SubstringSet]:
    """:func:`check_owners`, also returning the owners' automaton for ``also`` (built once, over
    only the owners that fit in the longest string it will search)."""
    one = len(parsed) == 1  # one text: its sets as they are, no 100k-item copy
    owners = parsed[0].owners if one else distinct(chain.from_iterable(text.owners for text in parsed))
    items = parsed[0].items if one else set().union(*(text.items for text in parsed))
    fixed = (grammar.header, grammar.owner_prefix, grammar.redaction)
    # Every item is listed under its position's kind (``parse_text`` checked), so the longest listed
    # one bounds them: no pass over 100k items in a set's order (10 ms at 10 MB, 23x its 1 MB cost).
    # An item longer than that (a hand-built ParsedText) is refused by the set or answered, never missed.
    listed = [vocabulary.longest(spec.kind) for spec in grammar.fields]
    longest = max([*listed, *map(len, fixed), *map(len, also)])
    matcher = SubstringSet(owners, longest_haystack=longest)
    if not owners.isdisjoint(vocabulary.all_items()) or matcher.occurs_in_any(chain(items, fixed)):
        raise _refuse(CutReason.AMBIGUOUS_SPAN, where, "an owner value also appears as or inside a public item")
    return owners, matcher
