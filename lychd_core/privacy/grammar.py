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
from dataclasses import dataclass
from functools import cached_property

from lychd_core.privacy.closed_vocabulary import ClosedVocabulary
from lychd_core.privacy.errors import CutReason, CutRefused


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


@dataclass(frozen=True, slots=True)
class ParsedText:
    """One text's records: the fixed-position part of each line, and each owner value."""

    heads: tuple[str, ...]
    owners: tuple[str, ...]


def _refuse(reason: CutReason, where: str, what: str) -> CutRefused:
    return CutRefused(reason, f"{where}: {what}")


def parse_text(
    text: str, grammar: RecordGrammar, vocabulary: ClosedVocabulary, *, where: str, candidate: bool
) -> ParsedText:
    """Parse one text; a candidate's owner slots must hold exactly the redaction.

    Refusals name the line and position, never the text that stood there.
    """
    lines = text.split("\n")
    if len(lines) < 2 or lines[-1] != "" or lines[0] != grammar.header:
        expected = f"expected the header line {grammar.header!r} and newline-ended records"
        raise _refuse(CutReason.UNCOVERED_TEXT, where, expected)
    kinds = [vocabulary.items(spec.kind) for spec in grammar.fields]
    slot = grammar.separator + grammar.owner_prefix
    valid: set[str] = set()
    heads: list[str] = []
    owners: list[str] = []
    for number, line in enumerate(lines[1:-1], start=2):
        head, found, owner = line.rpartition(slot)
        if not found:
            raise _refuse(CutReason.UNCOVERED_TEXT, where, f"line {number} has no owner slot")
        if head not in valid:
            parts = head.split(grammar.separator)
            if len(parts) != len(grammar.fields):
                raise _refuse(
                    CutReason.UNCOVERED_TEXT, where, f"line {number} has {len(parts)} fields, expected {len(kinds)}"
                )
            for spec, items, part in zip(grammar.fields, kinds, parts, strict=True):
                if part not in items and not (spec.optional and part == grammar.none):
                    owners_here = {item.rpartition(slot)[2] for item in lines[1:-1]} - {""}
                    if any(value in part for value in owners_here):
                        raise _refuse(
                            CutReason.SENSITIVE_OUTSIDE_OWNER_SLOT,
                            where,
                            f"line {number} {spec.name}: an owner value stands outside the owner slot",
                        )
                    raise _refuse(
                        CutReason.UNCOVERED_TEXT, where, f"line {number} {spec.name}: not in the closed vocabulary"
                    )
            valid.add(head)
        if candidate:
            if owner != grammar.redaction:
                raise _refuse(CutReason.RECONSTRUCTION_MISMATCH, where, f"line {number} owner slot is not redacted")
        elif not grammar.owner_re.fullmatch(owner):
            raise _refuse(CutReason.UNCOVERED_TEXT, where, f"line {number} owner value is outside the slot grammar")
        heads.append(head)
        owners.append(owner)
    return ParsedText(tuple(heads), tuple(owners))


def check_owners(
    parsed: list[ParsedText], grammar: RecordGrammar, vocabulary: ClosedVocabulary, *, where: str = "projection"
) -> frozenset[str]:
    """No owner value is itself a public item or hides inside one (its span would be ambiguous)."""
    owners = frozenset(o for text in parsed for o in text.owners)
    tokens = {grammar.header, grammar.owner_prefix}
    for text in parsed:
        for head in set(text.heads):
            tokens.update(head.split(grammar.separator))
    listed = vocabulary.all_items()
    for owner in owners:
        if owner in listed or any(owner in token for token in tokens):
            raise _refuse(CutReason.AMBIGUOUS_SPAN, where, "an owner value also appears as or inside a public item")
    return owners
