"""The ``cost`` history trim: how far to trim, priced from a provider's declared cache prices.

A provider's prefix cache writes a prefix it has not seen at ``write`` and reads a live one
at ``read`` (per mille of the uncached input price); a prefix is counted on for
``lifetime`` requests. When the kept history no longer fits, every candidate restart (drop
the oldest ``k`` complete groups, ``k = 0`` being ``newest``) is priced over the next
``lifetime`` requests: each later request appends one group of the mean size and reads the
rest from the cache, and a request that would pass the room restarts at the same size,
written again. A kept token is valued at the uncached input price (what it costs with no
cache), so the chosen restart maximizes kept context minus its price; ties keep more
context. Integer arithmetic only: the choice is the same on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lychd_core.errors import BudgetError

PER_MILLE = 1000
MAX_LIFETIME = 10_000


@dataclass(frozen=True, slots=True)
class CachePrices:
    """A provider's prefix-cache prices, per mille of the uncached input price, and its lifetime."""

    write: int = 1250
    read: int = 100
    lifetime: int = 12

    def __post_init__(self) -> None:
        for name, low, high in (
            ("write", 0, 100 * PER_MILLE),
            ("read", 0, 100 * PER_MILLE),
            ("lifetime", 2, MAX_LIFETIME),
        ):
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise BudgetError(f"cache price {name} must be an integer in [{low}, {high}], got {value!r}")

    def to_json(self) -> dict[str, int]:
        return {"write": self.write, "read": self.read, "lifetime": self.lifetime}


@dataclass(frozen=True, slots=True)
class CostChoice:
    """What the ``cost`` trim chose: ``dropped`` oldest groups, priced against ``newest`` (none dropped)."""

    dropped: int
    kept: int
    growth: int
    price: int
    value: int
    newest_price: int
    newest_value: int

    def describe(self, unit: str, prices: CachePrices) -> str:
        """One line for the plan: what was kept, and both restarts' price and value over the lifetime."""
        return (
            f"cost (write {prices.write / PER_MILLE:g}x, read {prices.read / PER_MILLE:g}x, lifetime "
            f"{prices.lifetime} requests): dropped {self.dropped} oldest groups, kept {self.kept:,} {unit}; over the "
            f"next {prices.lifetime} requests (one group of ~{self.growth:,} {unit} each) it costs "
            f"{self.price // PER_MILLE:,} for {self.value:,} {unit} of context, newest "
            f"{self.newest_price // PER_MILLE:,} for {self.newest_value:,}"
        )


def _priced(
    size: int, groups: int, growth: int, room: int, max_groups: int | None, prices: CachePrices
) -> tuple[int, int]:
    """Price (per mille units) and kept context of restarting at ``size`` over the lifetime.

    The requests repeat in cycles: a restart (``size`` written), then ``appends`` requests
    each writing one group and reading the rest; summed in closed form, so a trim costs
    O(groups) whatever the lifetime."""
    appends = (room - size) // growth if size <= room else 0
    if max_groups is not None:
        appends = min(appends, max(max_groups - groups, 0))
    write, read = prices.write, prices.read

    def first(requests: int) -> tuple[int, int]:  # the first ``requests`` of one cycle
        if requests == 0:
            return 0, 0
        j = requests - 1  # appends among them
        price = write * size + j * write * growth + read * (j * size + growth * j * (j - 1) // 2)
        return price, requests * size + growth * j * (j + 1) // 2

    cycles, rest = divmod(prices.lifetime, appends + 1)
    whole, part = first(appends + 1), first(rest)
    return cycles * whole[0] + part[0], cycles * whole[1] + part[1]


def choose_restart(sizes: Sequence[int], *, room: int, max_groups: int | None, prices: CachePrices) -> CostChoice:
    """How many of the oldest ``sizes`` (the groups ``newest`` keeps, oldest first) to drop."""
    if room < 0 or any(size < 0 for size in sizes):
        raise BudgetError(f"a cost trim needs sizes and a room >= 0, got room {room}")
    growth = max(1, -(-sum(sizes) // len(sizes))) if sizes else 1
    held = sum(sizes)
    best: tuple[int, int, int, int] | None = None  # (score, dropped, price, value)
    newest = (0, 0)
    for dropped in range(len(sizes) + 1):
        price, value = _priced(held, len(sizes) - dropped, growth, room, max_groups, prices)
        if dropped == 0:
            newest = (price, value)
        score = value * PER_MILLE - price
        if best is None or score > best[0]:  # ties keep the earlier (more context)
            best = (score, dropped, price, value)
        if dropped < len(sizes):
            held -= sizes[dropped]
    assert best is not None
    _, dropped, price, value = best
    return CostChoice(dropped, sum(sizes[dropped:]), growth, price, value, *newest)
