"""The ``[ranking]`` table: pinned ranking profiles and their integer weights."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MAX_WEIGHT = 1_000
"""Largest weight of one profile; weights are small integers so the combination stays exact."""


class RankingPin(BaseModel):
    """One ranking profile, pinned exactly, with its weight in the combined score."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, description="Exact registered ranking profile name.", examples=["lexical"])
    revision: int = Field(ge=1, strict=True, description="Exact integer revision of the profile.", examples=[1])
    weight: int = Field(
        default=1,
        ge=1,
        le=MAX_WEIGHT,
        strict=True,
        description="Integer weight of this profile's score in the combined relevance (1-1000).",
        examples=[2],
    )
    options: dict[str, Any] = Field(
        default_factory=dict, description="Options validated by the profile's own strict model.", examples=[{}]
    )


class RankingConfig(BaseModel):
    """Query-aware relevance of optional material; no profiles keeps the unranked order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profiles: list[RankingPin] = Field(
        default_factory=list,
        description="Ranking profiles combined by weight; empty keeps today's order (authority, priority, path).",
        examples=[[{"name": "lexical", "revision": 2, "weight": 2}]],
    )
    resolutions: bool = Field(
        default=True,
        description="Offer coarser resolutions (signatures, matched names) of ranked material that does not fit whole.",
        examples=[True],
    )
    history_messages: int = Field(
        default=4,
        ge=0,
        le=64,
        strict=True,
        description="How many of the newest history messages also seed ranking (their identifiers and paths).",
        examples=[4],
    )

    @model_validator(mode="before")
    @classmethod
    def _no_map_share(cls, data: Any) -> Any:
        if isinstance(data, dict) and "map_share" in data:
            raise ValueError(
                "ranking.map_share was removed: the map of coarse views is now sized by what it buys "
                "(the room the better-ranked files leave; see docs/ranking.md); delete the key"
            )
        return data

    @field_validator("profiles")
    @classmethod
    def _unique(cls, profiles: list[RankingPin]) -> list[RankingPin]:
        names = [pin.name for pin in profiles]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"ranking profile listed more than once: {', '.join(repeated)}; list each once")
        return profiles
