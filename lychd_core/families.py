"""Typed protocols for the five plugin families and the values they exchange.

A plugin is any object with an exact ``name``, an integer ``revision`` and a strict
pydantic ``options_model``; each family adds its own attributes and one method.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel

from lychd_core.blocks import Block, Omission
from lychd_core.digests import JsonValue
from lychd_core.labels import PrivatizationLabel
from lychd_core.roles import RoleProfile


class PluginFamily(StrEnum):
    PROJECTION_PROFILE = "projection-profile"
    COMPRESSOR = "compressor"
    ROLE_POLICY = "role-policy"
    PRIVACY_PROFILE = "privacy-profile"
    RANKING_PROFILE = "ranking-profile"


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
class Compressed:
    """A compressor's derived text and the omissions it declares."""

    text: str
    omissions: tuple[Omission, ...] = field(default_factory=tuple)


class Compressor(Plugin, Protocol):
    """Derives shorter text from blocks, declaring what it left out.

    The core turns the result into a new labelled block whose label is the join of
    its sources' labels; identity blocks are never handed to a compressor.
    """

    def compress(self, blocks: tuple[Block, ...], max_chars: int, options: BaseModel) -> Compressed: ...


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


FAMILY_PROTOCOLS: dict[PluginFamily, type] = {
    PluginFamily.PROJECTION_PROFILE: ProjectionProfile,
    PluginFamily.COMPRESSOR: Compressor,
    PluginFamily.ROLE_POLICY: RolePolicy,
    PluginFamily.PRIVACY_PROFILE: PrivacyProfile,
    PluginFamily.RANKING_PROFILE: RankingProfile,
}
FAMILY_METHOD: dict[PluginFamily, str] = {
    PluginFamily.PROJECTION_PROFILE: "project",
    PluginFamily.COMPRESSOR: "compress",
    PluginFamily.ROLE_POLICY: "profile",
    PluginFamily.PRIVACY_PROFILE: "propose",
    PluginFamily.RANKING_PROFILE: "rank",
}
