"""Lease-issued pseudonym tokens as a reversible cut's candidate carries them, and their check.

A token is ``<<ps:NAMESPACE:CATEGORY:SERIAL:TAG>>``. Only the vault can mint one (its tag
is keyed by the lease's data key); the verifier here checks only what it can see without
the map: every owner slot of the candidate holds a token of the lease's namespace and the
slot's category, the pairing of source values and tokens is one-to-one, and replacing each
token by its paired value rebuilds the source exactly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter

from pydantic import BaseModel, ConfigDict, Field

from lychd_core.errors import CutReason, CutRefused
from lychd_core.privacy.grammar import RecordGrammar

TOKEN_RE = re.compile(r"<<ps:([a-z2-7]{16}):([a-z][a-z0-9-]{0,31}):(0|[1-9][0-9]{0,8}):([0-9a-f]{12})>>")
NAMESPACE_PATTERN = r"^[a-z2-7]{16}$"


@dataclass(frozen=True, slots=True)
class ParsedToken:
    namespace: str
    category: str
    serial: int
    tag: str


def parse_token(text: str) -> ParsedToken | None:
    """The parts of ``text`` if the whole string is token-shaped (never a substring search)."""
    match = TOKEN_RE.fullmatch(text)
    if match is None:
        return None
    return ParsedToken(match[1], match[2], int(match[3]), match[4])


class ReversalSpec(BaseModel):
    """What a reversible candidate was made under: the lease (opaque id), its namespace, the categories."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lease_id: str = Field(pattern=r"^lease_[A-Za-z0-9_-]{8,64}$", description="Opaque vault lease reference.")
    namespace: str = Field(pattern=NAMESPACE_PATTERN, description="The lease's token namespace.")
    categories: tuple[str, ...] = Field(min_length=1, description="Slot categories replaced by tokens.")


def _slots(text: str, grammar: RecordGrammar) -> list[str]:
    return list(map(itemgetter(-1), grammar.record_re.findall(text, len(grammar.header) + 1)))


def check_reversal(
    sources: Sequence[str], candidates: Sequence[str], grammar: RecordGrammar, spec: ReversalSpec, *, where: str
) -> int:
    """Check a reversible candidate against its (already parsed) source; returns the token count.

    The fixed positions must be identical (compared with every owner slot redacted), each
    candidate slot must be exactly a token of ``spec``'s namespace and the grammar's owner
    category, and source values and tokens must pair one-to-one across the whole projection.
    """
    if grammar.owner_category not in spec.categories:
        raise CutRefused(CutReason.PLAN_MISMATCH, f"the reversal does not cover the {grammar.owner_category} slot")
    forward: dict[str, str] = {}
    backward: dict[str, str] = {}
    count = 0
    for index, (source, candidate) in enumerate(zip(sources, candidates, strict=True)):
        if grammar.redacted(source) != grammar.redacted(candidate):
            raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, f"{where}[{index}]: a fixed position differs")
        values, tokens = _slots(source, grammar), _slots(candidate, grammar)
        if len(values) != len(tokens):
            raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, f"{where}[{index}]: the record count differs")
        for line, (value, token) in enumerate(zip(values, tokens, strict=True), start=2):
            parsed = parse_token(token)
            if parsed is None or parsed.namespace != spec.namespace or parsed.category != grammar.owner_category:
                what = "is not a token of this lease's namespace and the slot's category"
                raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, f"{where}[{index}] line {line} owner slot {what}")
            if forward.setdefault(value, token) != token or backward.setdefault(token, value) != value:
                what = "owner values and tokens do not pair one-to-one"
                raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, f"{where}[{index}] line {line}: {what}")
            count += 1
        if _rebuilt(candidate, grammar, backward) != source:
            raise CutRefused(CutReason.RECONSTRUCTION_MISMATCH, f"{where}[{index}]: the source cannot be rebuilt")
    return count


def _rebuilt(candidate: str, grammar: RecordGrammar, backward: dict[str, str]) -> str:
    prefix = grammar.separator + grammar.owner_prefix
    return grammar.slot_re.sub(lambda m: prefix + backward[m.group(0)[len(prefix) :]], candidate)
