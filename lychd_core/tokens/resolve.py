"""The configured counter resolved against the registry, its options validated and bound."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from lychd_core.config.pins import resolve_pin
from lychd_core.config.tokens import CounterChoice, parse_pin
from lychd_core.digests import json_digest
from lychd_core.families import PluginFamily
from lychd_core.registry import Registry
from lychd_core.tokens.calibration import CalibrationStore
from lychd_core.tokens.counting import BoundCounter, reference_counter

if TYPE_CHECKING:
    from lychd_core.config.models import LychdConfig


def counter_choice(config: LychdConfig, model: str | None = None) -> CounterChoice | None:
    """The counter for ``model`` (``[tokens.models]``), else ``[tokens] counter``, else ``None`` (the reference)."""
    tokens = config.tokens
    if model is not None and model in tokens.models:
        return tokens.models[model]
    if tokens.counter is None:
        return None
    return CounterChoice(counter=tokens.counter, options=tokens.options)


def resolve_counter(
    config: LychdConfig, registry: Registry, *, model: str | None = None, state_dir: Path | None = None
) -> BoundCounter:
    """The bound counter for ``model`` (or the default one). A calibrated counter gets the
    ratio learned for its ``model`` option from ``state_dir``, when there is one."""
    choice = counter_choice(config, model)
    if choice is None:
        return reference_counter(config.governors.chars_per_token)
    name, revision = parse_pin(choice.counter)
    options: dict[str, Any] = dict(choice.options)
    entry = registry.resolve(PluginFamily.TOKEN_COUNTER, name, revision)
    calibrated = bool(getattr(entry.obj, "calibrated", False))
    if calibrated and model is not None:
        options.setdefault("model", model)
    where = "tokens" if model is None or model not in config.tokens.models else f'tokens.models."{model}"'
    resolved = resolve_pin(registry, PluginFamily.TOKEN_COUNTER, name, revision, options, where)
    bound = resolved.options
    if calibrated and state_dir is not None:
        learned = CalibrationStore(state_dir).ratio(str(getattr(bound, "model", "")))
        if learned is not None:
            bound = bound.model_copy(update={"ratio_ppm": learned.ppm})
    plugin = entry.obj
    # A calibrated count is characters x a learned ratio that moves between runs: nothing worth storing.
    identity = "" if calibrated else counter_identity(entry.pin, plugin.tokenizer, bound)

    def count(text: str) -> int:
        return plugin.count(text, bound)  # type: ignore[no-any-return]

    return BoundCounter(
        entry.pin,
        plugin.kind,
        plugin.tokenizer,
        count,
        entry.distribution,
        cache_chars=config.tokens.cache_chars,
        identity=identity,
    )


def counter_identity(pin: str, tokenizer: str, options: BaseModel) -> str:
    """What a stored count is a function of besides its text: the pin, the tokenizer and the bound options
    (empty, so nothing is stored, when the options have no canonical JSON)."""
    try:
        return f"{pin} {tokenizer} {json_digest(options.model_dump(mode='json'))}"
    except (TypeError, ValueError):
        return ""
