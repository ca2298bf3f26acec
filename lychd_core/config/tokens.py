"""The ``[tokens]`` and ``[history]`` tables: which counter prices a text, and how history is trimmed.

Kept apart from ``lychd_core.config`` (which embeds them) so counting never imports the config.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

PIN_RE = re.compile(r"^(?P<name>[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*)@(?P<revision>[1-9][0-9]{0,8})$")


def parse_pin(value: str) -> tuple[str, int]:
    """``"o200k_base@1"`` -> ``("o200k_base", 1)``; anything else is a ``ValueError`` saying the form."""
    found = PIN_RE.match(value)
    if found is None:
        raise ValueError(
            f"{value!r} is not a pin; write name@revision with an exact integer revision, like 'chars-3@1'"
        )
    return found["name"], int(found["revision"])


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CounterChoice(StrictModel):
    """One pinned token counter and its options."""

    counter: str = Field(description="The counter, pinned as name@revision.", examples=["o200k_base@1"])
    options: dict[str, Any] = Field(
        default_factory=dict, description="Options validated by the counter's own strict model.", examples=[{}]
    )

    @field_validator("counter")
    @classmethod
    def _pinned(cls, value: str) -> str:
        parse_pin(value)
        return value

    @property
    def pin(self) -> tuple[str, int]:
        return parse_pin(self.counter)


class TokensConfig(StrictModel):
    """How tokens are counted for the token budget; the character governor stays independent."""

    counter: str | None = Field(
        default=None,
        description="Token counter pinned as name@revision (see `lychd plugins`); unset: the reference "
        "estimate ceil(characters / governors.chars_per_token).",
        examples=["o200k_base@1"],
    )
    options: dict[str, Any] = Field(
        default_factory=dict, description="Options validated by the counter's own strict model.", examples=[{}]
    )
    models: dict[str, CounterChoice] = Field(
        default_factory=dict,
        description="Model name -> its own counter, used by the adapters for that model's requests.",
        examples=[{"openai:gpt-4o": {"counter": "o200k_base@1"}}],
    )
    cache_chars: int = Field(
        default=32_000_000,
        ge=0,
        strict=True,
        description="Characters of counted texts remembered per counter (0: count every time).",
        examples=[32_000_000],
    )

    @field_validator("counter")
    @classmethod
    def _pinned(cls, value: str | None) -> str | None:
        if value is not None:
            parse_pin(value)
        return value

    @model_validator(mode="after")
    def _options_need_counter(self) -> TokensConfig:
        if self.options and self.counter is None:
            raise ValueError("tokens.options are set but tokens.counter is not; name the counter they belong to")
        return self


class HistoryConfig(StrictModel):
    """How settled history is trimmed when the newest groups no longer fit."""

    trim: Literal["newest", "chunked", "cost"] = Field(
        default="newest",
        description="'newest': keep the newest complete groups that fit (the reference); 'chunked': when the "
        "kept groups no longer fit, drop the oldest complete groups down to low_water percent of the budget, then "
        "only append, so requests share a stable prefix a provider can cache; 'cost': append like chunked, and "
        "when the groups no longer fit drop as many of the oldest as the declared cache prices say pays (none "
        "when caching saves nothing), explained in the plan.",
        examples=["chunked"],
    )
    low_water: int = Field(
        default=60,
        ge=1,
        le=100,
        strict=True,
        description="chunked: percent of the history budget to drop to at a trim.",
        examples=[60],
    )
    cache_write: int = Field(
        default=1250,
        ge=0,
        le=100_000,
        strict=True,
        description="cost: the provider's price of writing a prefix to its cache, per mille of the uncached input "
        "price (1250: 1.25x, Anthropic-style; 1000: OpenAI-style).",
        examples=[1250],
    )
    cache_read: int = Field(
        default=100,
        ge=0,
        le=100_000,
        strict=True,
        description="cost: the price of reading a cached prefix, per mille of the uncached input price (100: 0.1x).",
        examples=[100],
    )
    cache_lifetime: int = Field(
        default=12,
        ge=2,
        le=10_000,
        strict=True,
        description="cost: requests a cached prefix is counted on; a trim is priced over this many requests.",
        examples=[12],
    )
