"""``calibrated``: characters times a per-model ratio the core learns from provider-reported usage."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from lychd_core.families import TokenCountKind

PPM = 1_000_000


class CalibratedOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(default="", description="The model whose learned ratio is used (set per model by the core).")
    ratio_ppm: int = Field(
        default=333_334,
        ge=1,
        le=4 * PPM,
        strict=True,
        description="Tokens per million characters; the core replaces it with the ratio learned for the model.",
    )


class CalibratedCounter:
    """``calibrated``: ceil(characters x ratio); the ratio rises at once on an overrun and falls slowly."""

    name = "calibrated"
    revision = 1
    options_model = CalibratedOptions
    kind = TokenCountKind.ESTIMATE
    tokenizer = "chars x learned ratio"
    calibrated = True

    def count(self, text: str, options: BaseModel) -> int:
        ratio = options.ratio_ppm if isinstance(options, CalibratedOptions) else CalibratedOptions().ratio_ppm
        return -(-len(text) * ratio // PPM)
