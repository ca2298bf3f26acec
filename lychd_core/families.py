"""Typed protocols for the six plugin families and the values they exchange.

A plugin is any object with an exact ``name``, an integer ``revision`` and a strict
pydantic ``options_model``; each family adds its own attributes and one method.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel

from lychd_core.blocks import Omission
from lychd_core.digests import JsonValue
from lychd_core.labels import PrivatizationLabel
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import ContextClass, Provenance


class PluginFamily(StrEnum):
    PROJECTION_PROFILE = "projection-profile"
    COMPRESSOR = "compressor"
    ROLE_POLICY = "role-policy"
    PRIVACY_PROFILE = "privacy-profile"
    RANKING_PROFILE = "ranking-profile"
    TOKEN_COUNTER = "token-counter"


@runtime_checkable
class Plugin(Protocol):
    """What every registered plugin has."""

    @property
    def name(self) -> str: ...

    @property
    def revision(self) -> int: ...

    @property
    def options_model(self) -> type[BaseModel]: ...


# --- projection profiles --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourceMaterial:
    """Verified bytes of one material, handed to a projection profile.

    The core has already checked containment, size and digest; the profile decides
    only how to project.
    """

    path: str
    media_type: str
    data: bytes
    digest: str
    max_bytes: int
    max_chars: int


@dataclass(frozen=True, slots=True)
class Projected:
    """A successful projection: outline or exact text, plus the same facts as data."""

    text: str
    facts: JsonValue = None
    line_map: tuple[int, ...] = ()
    """Source line number of each projected line, where the profile keeps provenance."""
    omissions: tuple[Omission, ...] = ()


@dataclass(frozen=True, slots=True)
class Unavailable:
    """An explicit, explained absence. Never replaced by full text."""

    reason: str


ProjectionOutcome = Projected | Unavailable


class ProjectionProfile(Plugin, Protocol):
    """Projects one material of an accepted media type into text plus facts.

    The outcome must depend only on the bytes, media type, bounds and options — never
    on ``SourceMaterial.path`` — because the projection cache shares entries across
    paths with the same content.

    Optional capability attribute ``file_media_types: Mapping[str, str]``: the exact file
    names and extensions (``{".toy": "text/x-toy"}``) of the profile's own media types;
    detection uses them after the configuration's ``[media_types]`` and before the core's
    tables (:mod:`lychd_core.config.media_table`).

    Optional capability attribute ``time_bounded = True``: every call ends on its own in
    bounded time, so with one process the core calls it in the caller's process instead
    of a worker killed at the time limit (:mod:`lychd_core.projection.pool`).
    """

    @property
    def media_types(self) -> frozenset[str]: ...

    @property
    def parser_version(self) -> str:
        """Identity of the parser (for example ``libcst 1.9.0``); part of the cache key."""
        ...

    def project(self, source: SourceMaterial, options: BaseModel) -> ProjectionOutcome: ...


# --- compressors ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompactionPolicy:
    """The exact policy a proposal claims: compressor ``name@revision`` and the digest of
    its validated options. ``preserves_trust`` is the compressor's own declaration."""

    name: str
    revision: int
    digest: str
    preserves_trust: bool
    id: str = field(init=False)
    """``name@revision``, spelled once (every proposal and receipt names it)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", f"{self.name}@{self.revision}")


@dataclass(frozen=True, slots=True)
class CompactionSource:
    """One node a compressor may use as a source, as the core hands it over."""

    node_id: str
    content: str
    digest: str
    context_class: ContextClass
    provenance: Provenance
    token_estimate: int
    recency: int
    omitted: bool
    """The plan leaves it out for lack of room (it is still a candidate of this call)."""
    messages: tuple[dict[str, Any], ...] | None = None
    """For a history source, its checked messages (read-only), so a compressor need not
    parse ``content`` back; ``None`` for other sources."""
    message_texts: tuple[str, ...] | None = None
    """Each of ``messages`` as compact JSON: ``content`` is their concatenation."""


@dataclass(frozen=True, slots=True)
class CompactionRequest:
    """What a compressor sees: candidate sources (graph order), its policy and the bounds."""

    sources: tuple[CompactionSource, ...]
    policy: CompactionPolicy
    max_chars: int
    """Largest content of one proposal."""
    chars_per_token: int
    older_unseen: int = 0
    """Settled messages older than every source, which never became nodes."""


@dataclass(frozen=True, slots=True, order=True)
class SourceRange:
    """Characters ``[start, end)`` of one source node's content that a proposal derives from."""

    node_id: str
    start: int
    end: int


@dataclass(frozen=True, slots=True, weakref_slot=True)
class CompactionProposal:
    """A proposed derived node. The core validates it before anything changes.

    ``ranges`` are canonical: sorted, non-empty and non-overlapping per source; every
    node they name is replaced whole. ``source_digests`` is the lineage the compressor
    saw, ``(node_id, digest)`` sorted by id, one per source.
    """

    output_id: str
    policy_id: str
    policy_digest: str
    content: str
    ranges: tuple[SourceRange, ...]
    source_digests: tuple[tuple[str, str], ...]
    invariants: tuple[str, ...] = ()
    """What the derivation keeps true (for example ``tool call/return pairs intact``)."""
    omissions: tuple[Omission, ...] = ()
    context_class: ContextClass | None = None
    """``None`` keeps the sources' class (an elided group is still a group); ``compaction``
    marks a summary that stands for several sources. No other class is accepted."""

    @property
    def source_ids(self) -> tuple[str, ...]:
        if len(self.ranges) == 1:  # the common case: one source, nothing to sort
            return (self.ranges[0].node_id,)
        return tuple(sorted({r.node_id for r in self.ranges}))


class Compressor(Plugin, Protocol):
    """Proposes derived nodes; the core validates each proposal and makes the node.

    The core joins the sources' labels, intersects their visibility and decides trust
    (``untrusted`` unless every source is trusted and ``preserves_trust``); protected
    material (policy, specifications, the query, continuations, required nodes) is
    never offered as a source.
    """

    @property
    def preserves_trust(self) -> bool:
        """Whether the derivation keeps its sources' facts exactly (elision, outlines)."""
        ...

    def propose(self, request: CompactionRequest, options: BaseModel) -> tuple[CompactionProposal, ...]: ...


# --- role policies --------------------------------------------------------------


class RolePolicy(Plugin, Protocol):
    """Maps a role name to its context profile; unknown roles get a restricted one."""

    @property
    def roles(self) -> tuple[str, ...]:
        """The roles this policy names explicitly."""
        ...

    def profile(self, role: str, options: BaseModel) -> RoleProfile: ...


# --- privacy profiles -----------------------------------------------------------

PrivacyOperation = Literal["redact", "pseudonymize", "generalize"]


@dataclass(frozen=True, slots=True)
class PrivacyFinding:
    """A proposed typed operation over one span ``[start, end)`` of a text."""

    start: int
    end: int
    category: str
    operation: PrivacyOperation


class PrivacyProfile(Plugin, Protocol):
    """Proposes findings only; a deterministic applicator in the core makes candidates.

    It may raise ``PrivacyRefusal`` when it cannot cover the text.
    """

    def propose(self, text: str, label: PrivatizationLabel, options: BaseModel) -> tuple[PrivacyFinding, ...]: ...


# --- ranking profiles -----------------------------------------------------------

MAX_SCORE = 10_000
"""Scores are integer basis points in ``[0, MAX_SCORE]``: no floats, the same on every platform."""


@dataclass(frozen=True, slots=True)
class RankingQuery:
    """What a ranking profile ranks against: the query and what the history and required files name."""

    text: str
    history: str = ""
    """Recent history text (newest last), already bounded by the core."""
    required_paths: tuple[str, ...] = ()
    """Workspace-relative paths of material that is required (already in the context)."""


@dataclass(frozen=True, slots=True)
class RankingCandidate:
    """One optional node to rank: its id, material path, projected text and the projection's facts."""

    node_id: str
    path: str
    text: str
    facts: JsonValue = None
    profile: str = ""
    """The projection profile pin that made ``text`` and ``facts`` (``structure.python@1``)."""


@dataclass(frozen=True, slots=True)
class Score:
    """A bounded integer score (basis points) and a short reason a person can read."""

    value: int
    reason: str = ""


class RankingProfile(Plugin, Protocol):
    """Scores candidates for a query; deterministic, integer, explained.

    ``rank`` returns a mapping from candidate ``node_id`` to :class:`Score`; a candidate
    left out scores 0. The core refuses (and falls back to unranked order, explained) a
    score that is not an ``int`` in ``[0, MAX_SCORE]`` or names an unknown candidate.
    """

    def rank(
        self, query: RankingQuery, candidates: tuple[RankingCandidate, ...], options: BaseModel
    ) -> Mapping[str, Score]: ...


# --- token counters -------------------------------------------------------------


class TokenCountKind(StrEnum):
    """What a token counter's count promises about the model's real count."""

    EXACT = "exact"
    """The count of a named tokenizer, exactly."""
    UPPER_BOUND = "upper-bound"
    """Provably at least the real count of every model the counter names."""
    ESTIMATE = "estimate"
    """A guess; it may be under or over."""


class TokenCounter(Plugin, Protocol):
    """Counts the tokens of a text: ``count(text, options) -> int`` (>= 0), deterministic.

    ``kind`` declares what the count promises (:class:`TokenCountKind`). ``tokenizer``
    names what is counted (``o200k_base``, ``utf-8 bytes``); it identifies cached counts.
    Optional capability attribute ``calibrated = True``: the options model has an integer
    ``ratio_ppm`` field (tokens per million characters) that the core fills from the
    ratio it learned for the options' ``model`` (see ``docs/tokens.md``).
    """

    @property
    def kind(self) -> TokenCountKind: ...

    @property
    def tokenizer(self) -> str: ...

    def count(self, text: str, options: BaseModel) -> int: ...


FAMILY_PROTOCOLS: dict[PluginFamily, type] = {
    PluginFamily.PROJECTION_PROFILE: ProjectionProfile,
    PluginFamily.COMPRESSOR: Compressor,
    PluginFamily.ROLE_POLICY: RolePolicy,
    PluginFamily.PRIVACY_PROFILE: PrivacyProfile,
    PluginFamily.RANKING_PROFILE: RankingProfile,
    PluginFamily.TOKEN_COUNTER: TokenCounter,
}
FAMILY_METHOD: dict[PluginFamily, str] = {
    PluginFamily.PROJECTION_PROFILE: "project",
    PluginFamily.COMPRESSOR: "propose",
    PluginFamily.ROLE_POLICY: "profile",
    PluginFamily.PRIVACY_PROFILE: "propose",
    PluginFamily.RANKING_PROFILE: "rank",
    PluginFamily.TOKEN_COUNTER: "count",
}
