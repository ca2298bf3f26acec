"""The ``closed-diagnostic@1`` grammar and its deterministic censor.

A text is the header line ``closed-diagnostic@1`` and records, one a line:

    <dependency> <version> <status> <diagnostic|-> <citation|-> <fix-version|-> owner=<owner>

Every position but the owner slot holds an item of the deployment's closed public
vocabulary; the owner slot holds the one sensitive span. The censor has its own
parser (one compiled pattern, matched whole against each line), independent of the
core verifier's. Every step is linear in the text: each line is matched once from its
start (an unanchored search would retry every position of a long line), and owner
values are found in items and candidates by one automaton pass, never owner by owner.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence, Set
from dataclasses import dataclass
from itertools import chain

from lychd_core.errors import CutReason, CutRefused
from lychd_core.families import PrivacyFinding
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy import CallProjection, ClosedVocabulary, FieldSpec, RecordGrammar
from lychd_core.privacy.matching import SubstringSet

GRAMMAR = RecordGrammar(
    name="closed-diagnostic@1",
    fields=(
        FieldSpec("dependency", "dependencies", invariant="dependencies"),
        FieldSpec("version", "versions", invariant="versions"),
        FieldSpec("status", "statuses", invariant="statuses"),
        FieldSpec("diagnostic", "diagnostics", optional=True, invariant="diagnostics"),
        FieldSpec("citation", "citations", optional=True, invariant="citations"),
        FieldSpec("fix", "versions", optional=True, invariant="versions"),
    ),
)
OWNER_CATEGORY = "owner"
_LINE = re.compile(r"(?P<head>[^ \n]+(?: [^ \n]+){5}) owner=(?P<owner>[^\n]*)")
_SLOT_VALUE = re.compile(r" owner=([^\n]*)\n")
_OWNER_SLOT = re.compile(r" owner=[^\n]*\n")
_REDACTED = f" owner={GRAMMAR.redaction}\n"
_REDACT_CHARS = 1 << 16
"""Characters of a text redacted at once (whole lines): ``re.sub`` copies every stretch between
two slots into a string of its own before joining them, and over a 10 MB text those 100k pieces
were faulted in anew at every cut; a window's pieces are freed and their memory reused."""


@dataclass(frozen=True, slots=True)
class OwnerSpan:
    start: int
    end: int
    value: str


def _uncovered(where: str, line: int, what: str) -> CutRefused:
    return CutRefused(CutReason.UNCOVERED_TEXT, f"{where} line {line}: {what}")


def _check_head(head: str, vocabulary: ClosedVocabulary, owners: SubstringSet, where: str, line: int) -> None:
    for spec, part in zip(GRAMMAR.fields, head.split(" "), strict=True):
        if part in vocabulary.items(spec.kind) or (spec.optional and part == GRAMMAR.none):
            continue
        if owners.occurs_in(part):
            raise CutRefused(
                CutReason.SENSITIVE_OUTSIDE_OWNER_SLOT, f"{where} line {line} {spec.name}: holds an owner value"
            )
        raise _uncovered(where, line, f"{spec.name} is not in the closed vocabulary")


def _record_lines(text: str) -> tuple[list[re.Match[str]], int | None, bool]:
    """The leading run of record lines after the header (matched in place, never copied), the
    number of the first line that is not a record (None: all are), and whether it lacks its newline."""
    matches: list[re.Match[str]] = []
    position = len(GRAMMAR.header) + 1
    while position < len(text):
        end = text.find("\n", position)
        match = None if end < 0 else _LINE.fullmatch(text, position, end)
        if match is None:
            return matches, len(matches) + 2, end < 0
        matches.append(match)
        position = end + 1
    return matches, None, False


def owner_spans(text: str, vocabulary: ClosedVocabulary, where: str = "text") -> Iterator[OwnerSpan]:
    """Parse ``text`` under the grammar, yielding each owner span; anything else refuses.

    Refusals name the line and position, never the text that stood there.
    """
    if not text.startswith(GRAMMAR.header + "\n"):
        raise _uncovered(where, 1, f"expected the header {GRAMMAR.header!r}")
    matches, uncovered, unterminated = _record_lines(text)
    owners = SubstringSet(m.group("owner") for m in matches if GRAMMAR.owner_re.fullmatch(m.group("owner")))
    checked: set[str] = set()
    for line, match in enumerate(matches, start=2):
        head = match.group("head")
        if head not in checked:
            _check_head(head, vocabulary, owners, where, line)
            checked.add(head)
        owner = match.group("owner")
        if not GRAMMAR.owner_re.fullmatch(owner):
            raise _uncovered(where, line, "the owner value is outside the slot grammar")
        yield OwnerSpan(match.start("owner"), match.end("owner"), owner)
    if uncovered is not None:
        newline = " (every record ends with a newline)" if unterminated else ""
        raise _uncovered(where, uncovered, f"text outside the record grammar{newline}")


def check_ambiguity(texts: Sequence[str], owners: frozenset[str], vocabulary: ClosedVocabulary) -> None:
    """An owner value that is a public item, or hides inside one, makes its span ambiguous."""
    heads = {match.group("head") for text in texts for match in _record_lines(text)[0]}
    _check_owner_ambiguity(owners, set().union(*(head.split(" ") for head in heads)), vocabulary)


def _check_owner_ambiguity(owners: frozenset[str], items: set[str], vocabulary: ClosedVocabulary) -> None:
    public = items | {GRAMMAR.header, "owner=", GRAMMAR.redaction}
    if not owners.isdisjoint(vocabulary.all_items()) or SubstringSet(owners).occurs_in_any(public):
        raise CutRefused(CutReason.AMBIGUOUS_SPAN, "an owner value also appears as or inside a public item")


def _owners(text: str, vocabulary: ClosedVocabulary, where: str) -> tuple[Set[str], int]:
    """Distinct owner values (in their order in the text: the trie over them builds faster so)
    and the record count of one text.

    The censor checks only what it needs to redact exactly: the header, one owner slot
    per line, each owner value in the slot grammar. The core verifier checks the rest
    (every fixed position against the vocabulary). On any doubt the line-by-line parser
    names the first problem.
    """
    header = GRAMMAR.header + "\n"
    if text.startswith(header) and text.endswith("\n"):
        found = _SLOT_VALUE.findall(text, len(header))
        owners = dict.fromkeys(found).keys()
        if len(found) == text.count("\n") - 1 and all(map(GRAMMAR.owner_re.fullmatch, owners)):
            return owners, len(found)
    for _ in owner_spans(text, vocabulary, where):  # names the first problem
        pass
    raise _uncovered(where, 1, "text outside the record grammar")


def _check_no_leak(candidates: Sequence[str], owners: Set[str], vocabulary: ClosedVocabulary) -> None:
    """No owner value may remain anywhere in a candidate, nor be a public item."""
    if not owners.isdisjoint(vocabulary.all_items()):
        raise CutRefused(CutReason.AMBIGUOUS_SPAN, "an owner value is also a public item")
    anywhere = SubstringSet(owners)
    for candidate in candidates:
        spans = list(anywhere.spans(candidate))  # almost always empty: only a refusal has any
        if not spans:
            continue
        if any(_stands_whole(candidate, start, end) for start, end in spans):
            raise CutRefused(CutReason.SENSITIVE_OUTSIDE_OWNER_SLOT, "an owner value stands outside the owner slot")
        raise CutRefused(CutReason.AMBIGUOUS_SPAN, "an owner value also appears inside a public item")


def _stands_whole(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a whole space- or line-delimited field."""
    return (start == 0 or text[start - 1] in " \n") and (end == len(text) or text[end] in " \n")


def findings(text: str, vocabulary: ClosedVocabulary) -> tuple[PrivacyFinding, ...]:
    """The owner spans of one text as findings (redact, category ``owner``)."""
    spans = list(owner_spans(text, vocabulary))
    check_ambiguity([text], frozenset(s.value for s in spans), vocabulary)
    return tuple(PrivacyFinding(s.start, s.end, OWNER_CATEGORY, "redact") for s in spans)


def check_labels(labels: Sequence[PrivatizationLabel], allowed_categories: frozenset[str], max_parents: int) -> None:
    """Unknown lineage, prohibited categories and excess ancestry refuse before any parsing."""
    if any(not label.lineage_known for label in labels):
        raise CutRefused(CutReason.UNKNOWN_LINEAGE, "an item's lineage is unknown; label it with a [[labels]] rule")
    categories = frozenset().union(*(label.categories for label in labels))
    if categories - allowed_categories:
        raise CutRefused(
            CutReason.PROHIBITED_CATEGORY, f"{len(categories - allowed_categories)} categories are not allowed here"
        )
    parents = frozenset().union(*(label.material_parents for label in labels))
    if len(parents) > max_parents:
        raise CutRefused(
            CutReason.EXCESS_ANCESTRY, f"{len(parents)} material parents exceed the bound of {max_parents}"
        )


def _redacted(text: str) -> str:
    """``text`` with every owner slot redacted, a window of whole lines at a time (a slot never
    spans a line, so the windows' redactions joined are the whole text's)."""
    parts: list[str] = []
    start = 0
    while start < len(text):
        end = text.find("\n", start + _REDACT_CHARS)
        end = len(text) if end < 0 else end + 1
        parts.append(_OWNER_SLOT.sub(_REDACTED, text[start:end]))
        start = end
    return "".join(parts)


def censor_texts(source: CallProjection, vocabulary: ClosedVocabulary) -> tuple[list[str], int]:
    """The candidate texts (every owner span redacted) and how many spans were redacted."""
    texts: list[str] = []
    parts: list[Set[str]] = []
    count = 0
    for item in source.items:
        item_owners, records = _owners(item.text, vocabulary, f"{item.section}[{item.key}]")
        parts.append(item_owners)
        count += records
        texts.append(_redacted(item.text))
    owners = parts[0] if len(parts) == 1 else dict.fromkeys(chain.from_iterable(parts)).keys()  # one: no copy
    _check_no_leak(texts, owners, vocabulary)
    return texts, count
