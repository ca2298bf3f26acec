"""The closed vocabularies shared by nodes, role policies and memory.

Enumerations are ordered where the reference text orders them: a larger
``Authority`` outranks a smaller one; ``Requirement`` likewise.

The ceiling tables say how much authority and trust material of each provenance
may ever carry. Metadata from a checked constructor decides a node's ceiling;
prose inside its content never raises it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum, IntEnum, StrEnum
from functools import cache
from types import MappingProxyType
from typing import TypeVar


class Provenance(StrEnum):
    """Where a piece of context originally came from."""

    SYSTEM = "system"
    APPLICATION = "application"
    USER = "user"
    REPOSITORY = "repository"
    EXTERNAL = "external"
    MEMORY = "memory"
    TOOL = "tool"
    AGENT = "agent"
    REVIEW = "review"
    DERIVED_COMPACTION = "derived-compaction"


class Authority(IntEnum):
    """Instruction authority, highest first in precedence."""

    NON_AUTHORITATIVE = 0
    USER_INSTRUCTION = 1
    ACCEPTANCE_SPECIFICATION = 2
    APPLICATION_POLICY = 3
    SYSTEM_POLICY = 4


class Trust(IntEnum):
    """Factual trust ceiling: what a node may be relied on for, never instruction authority.

    ``TRUSTED`` material may be relied on as stated; ``CONSTRAINED`` material (tool
    results, model output, reviews) only for what its producer observed, since it may
    carry instruction-like prose; ``UNTRUSTED`` material (fetched text, memory,
    lossy derivations) only as a quotation.
    """

    UNTRUSTED = 0
    CONSTRAINED = 1
    TRUSTED = 2


class Requirement(IntEnum):
    """Selection mode; a larger value is admitted first.

    ``REQUIRED`` nodes and their closures must be selected or selection fails.
    ``DEPENDENCY_REQUIRED`` nodes are never roots: they enter only with a selected
    node that depends on them. ``OPTIONAL`` nodes are candidate roots.
    """

    OPTIONAL = 0
    DEPENDENCY_REQUIRED = 1
    REQUIRED = 2


class ContextClass(StrEnum):
    """Semantic class of a node, the unit role policies filter on."""

    POLICY = "policy"
    INSTRUCTION = "instruction"
    SPECIFICATION = "specification"
    CANDIDATE = "candidate"
    SOURCE = "source"
    GATE_EVIDENCE = "gate-evidence"
    FINDING = "finding"
    ENVIRONMENT = "environment"
    MEMORY_EVIDENCE = "memory-evidence"
    TOOL_OUTPUT = "tool-output"
    HISTORY = "history"
    CONTINUATION = "continuation"
    QUERY = "query"
    COMPACTION = "compaction"
    PRODUCER_ANCESTRY = "producer-ancestry"
    PRODUCER_REASONING = "producer-reasoning"
    PRODUCER_RATIONALE = "producer-rationale"


class Operation(StrEnum):
    """Operation classes a role's read-only capability view may list."""

    READ_CONTEXT = "read-context"
    PROPOSE_CHANGE = "propose-change"
    RUN_CHECKS = "run-checks"
    RECORD_FINDING = "record-finding"
    RESOLVE_FINDING = "resolve-finding"
    RECORD_EVALUATION = "record-evaluation"
    PROPOSE_HARNESS_CHANGE = "propose-harness-change"


class OmissionReason(StrEnum):
    """Why a node is not in the plan."""

    HIDDEN = "hidden"
    """The role's policy (class, provenance or the node's own ``visible_to``) hides it."""
    HIDDEN_DEPENDENCY = "hidden-dependency"
    """Something in its dependency closure is hidden, so it cannot be admitted whole."""
    TOKEN_BUDGET = "token-budget"
    CHARACTER_LIMIT = "character-limit"
    BYTE_LIMIT = "byte-limit"
    NODE_LIMIT = "node-limit"
    OUTSIDE_TURN_WINDOW = "outside-turn-window"
    """Admitting its closure would select more history groups than the turn window."""
    NOT_NEEDED = "not-needed"
    """A dependency-required node that no selected node depends on."""
    ALTERNATIVE_SELECTED = "alternative-selected"
    """Another member of its exclusive group (a resolution of the same material) was selected."""


# --- ceilings ---------------------------------------------------------------------

AUTHORITY_CEILING: Mapping[Provenance, Authority] = MappingProxyType(
    {
        Provenance.SYSTEM: Authority.SYSTEM_POLICY,
        Provenance.APPLICATION: Authority.APPLICATION_POLICY,
        Provenance.USER: Authority.USER_INSTRUCTION,
        Provenance.REPOSITORY: Authority.NON_AUTHORITATIVE,
        Provenance.EXTERNAL: Authority.NON_AUTHORITATIVE,
        Provenance.MEMORY: Authority.NON_AUTHORITATIVE,
        Provenance.TOOL: Authority.NON_AUTHORITATIVE,
        Provenance.AGENT: Authority.NON_AUTHORITATIVE,
        Provenance.REVIEW: Authority.NON_AUTHORITATIVE,
        Provenance.DERIVED_COMPACTION: Authority.NON_AUTHORITATIVE,
    }
)
"""Highest authority material of each provenance may carry; any lower value is allowed.

Only system material may be system policy; application material may be application
policy or an acceptance specification; a user may instruct; everything else is data.
"""

TRUST_CEILING: Mapping[Provenance, Trust] = MappingProxyType(
    {
        Provenance.SYSTEM: Trust.TRUSTED,
        Provenance.APPLICATION: Trust.TRUSTED,
        Provenance.USER: Trust.TRUSTED,
        Provenance.REPOSITORY: Trust.TRUSTED,
        Provenance.EXTERNAL: Trust.UNTRUSTED,
        Provenance.MEMORY: Trust.UNTRUSTED,
        Provenance.TOOL: Trust.CONSTRAINED,
        Provenance.AGENT: Trust.CONSTRAINED,
        Provenance.REVIEW: Trust.CONSTRAINED,
        Provenance.DERIVED_COMPACTION: Trust.TRUSTED,
    }
)
"""Highest trust material of each provenance may carry: fetched and remembered material
is never trusted; tool, model and review output is at most constrained. A
compaction may be trusted only when every source is and its policy preserves trust
(``lychd_core.compression`` decides; the ceiling only bounds it)."""


def ceiling_violation(provenance: Provenance, authority: Authority, trust: Trust) -> str | None:
    """Why ``authority``/``trust`` exceed the ceiling of ``provenance``, or ``None`` if they do not."""
    max_authority = AUTHORITY_CEILING[provenance]
    if authority > max_authority:
        return f"{provenance.value} material may carry authority up to {token(max_authority)}, not {token(authority)}"
    max_trust = TRUST_CEILING[provenance]
    if trust > max_trust:
        return f"{provenance.value} material may be at most {token(max_trust)}, not {token(trust)}"
    return None


# --- spelling in JSON and on the command line ---------------------------------------

E = TypeVar("E", bound=Enum)


_TOKENS: dict[tuple[type[Enum], Enum], str] = {}
"""Spellings already made, keyed by type too: members of two ``IntEnum`` types with one
value are equal keys on their own (``Trust.UNTRUSTED == Authority.NON_AUTHORITATIVE``)."""


def token(member: Enum) -> str:
    """The JSON spelling of a member: its value for string enums, else its hyphenated name."""
    key = (type(member), member)
    spelled = _TOKENS.get(key)
    if spelled is None:  # members are few and immutable; digests of big graphs spell three per node
        spelled = member.value if isinstance(member, StrEnum) else member.name.lower().replace("_", "-")
        _TOKENS[key] = spelled
    return spelled


@cache
def _spellings(enum_type: type[Enum]) -> Mapping[str, Enum]:
    return MappingProxyType({token(member): member for member in enum_type})


def parse_token(enum_type: type[E], text: object) -> E | None:
    """The member of ``enum_type`` spelled ``text``, or ``None`` when there is none."""
    if not isinstance(text, str):
        return None
    return _spellings(enum_type).get(text)  # type: ignore[return-value]


def tokens(enum_type: type[Enum]) -> list[str]:
    """Every spelling of ``enum_type``, for error messages."""
    return [token(member) for member in enum_type]
