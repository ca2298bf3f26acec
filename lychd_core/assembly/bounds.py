"""The bounds one assembly is checked against, and the required-first reservation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lychd_core.assembly.environment import Grant
from lychd_core.assembly.governors import effective_char_cap, request_input_limit, resolve_window
from lychd_core.config import Governors, LychdConfig, default_config, parse_config
from lychd_core.errors import ContextBudgetExceededError
from lychd_core.graph import SelectionBounds, TokenBudget
from lychd_core.graph.budget import MAX_INT
from lychd_core.tokens import REFERENCE_PIN

NO_TOKEN_BUDGET = "absent: no model window is known, so the character cap alone bounds"


@dataclass(frozen=True, slots=True)
class AssemblyBounds:
    """The bounds one assembly is checked against."""

    window: int | None
    reserve_output: int
    protocol_overhead: int
    char_cap: int
    turn_window: int
    chars_per_token: int
    budget: TokenBudget
    """With no known window there is no token budget: the selector gets one of ``MAX_INT``
    tokens, which no count reaches, and ``usable_tokens`` is ``None``."""
    token_counter: str = REFERENCE_PIN
    """The pin of the counter that priced the nodes (``reference``: ceil(chars / chars_per_token))."""

    @property
    def usable_tokens(self) -> int | None:
        """Input tokens the model window leaves, or ``None``: no window, no token budget."""
        return None if self.window is None else self.budget.usable

    def to_json(self) -> dict[str, int | str | None]:
        return {
            "window": self.window,
            "reserve_output": self.reserve_output,
            "protocol_overhead": self.protocol_overhead,
            "char_cap": self.char_cap,
            "turn_window": self.turn_window,
            "chars_per_token": self.chars_per_token,
            "usable_tokens": self.usable_tokens,
            "token_budget": NO_TOKEN_BUDGET if self.window is None else f"usable {self.budget.usable} tokens",
            "token_counter": self.token_counter,
        }

    @property
    def selection(self) -> SelectionBounds:
        return SelectionBounds(max_chars=self.char_cap, max_history_groups=max(self.turn_window, 0))


def with_overrides(
    config: LychdConfig | None,
    governors: Governors | Mapping[str, Any] | None = None,
    **budget: int | None,
) -> LychdConfig:
    """``config`` (default: the built-in one) with ``governors`` and the given budget fields
    (``window``, ``reserve_output``, ``protocol_overhead``; ``None`` keeps the configured
    value) put over it, validated as a file would be (``ConfigError`` names the field)."""
    config = default_config() if config is None else config
    changes = {name: value for name, value in budget.items() if value is not None}
    if governors is None and not changes:
        return config
    data = config.model_dump(mode="python")
    if governors is not None:
        given = governors.model_dump() if isinstance(governors, Governors) else dict(governors)
        data["governors"] = {**data["governors"], **given}
    data["assembly"] = {**data["assembly"], **changes}
    return parse_config(data, "orchestrator arguments")


def assembly_bounds(
    config: LychdConfig,
    grant: Grant | None,
    window: int | None,
    reserve_output: int | None,
    *,
    token_counter: str = REFERENCE_PIN,
) -> AssemblyBounds:
    """The known window (generation profile > spec > caller > config), the effective
    character cap and the token budget; a reserve >= window refuses first.
    ``token_counter``: the pin of the counter that prices the nodes."""
    settings, governors = config.assembly, config.governors
    known = resolve_window(grant.max_context, grant.spec_max_context) if grant else None
    if known is None:
        known = window if window is not None else settings.window
    reserve = settings.reserve_output if reserve_output is None else reserve_output
    overhead = settings.protocol_overhead
    char_cap = effective_char_cap(governors.char_cap, governors.chars_per_token, known)
    if known is not None:
        request_input_limit(known, reserve)
        budget = TokenBudget(window=known, reserved_output=reserve, protocol_overhead=overhead)
    else:  # no known window, no token budget: the character governor is the bound (the reference's rule)
        budget = TokenBudget(window=MAX_INT, reserved_output=reserve, protocol_overhead=overhead)
    return AssemblyBounds(
        known, reserve, overhead, char_cap, governors.turn_window, governors.chars_per_token, budget, token_counter
    )


def reserve_required(bounds: AssemblyBounds, parts: dict[str, int], required_tokens: int) -> int:
    """Floor, query and continuation first; return their characters or refuse with the figures."""
    required_chars = sum(parts.values())
    usable = bounds.usable_tokens
    if required_chars > bounds.char_cap or (usable is not None and required_tokens > usable):
        available = (
            f"only {bounds.char_cap} characters are available (no model window is known, so the character cap "
            "alone bounds)"
            if bounds.window is None
            else f"only {bounds.char_cap} characters and {usable} tokens of the {bounds.window}-token "
            "window are available"
        )
        raise ContextBudgetExceededError(
            f"floor, query and continuation need {required_chars} characters (~{required_tokens} tokens) but "
            f"{available}: " + ", ".join(f"{name} {chars}" for name, chars in parts.items()),
            required=required_chars,
            available=bounds.char_cap,
            parts=parts,
        )
    return required_chars
