"""Token counts stored with projections: a warm run reads them instead of tokenizing again.

After the floor is projected, the Codex blocks' counts by the configured counter are read
from the projection cache (one query per batch, each row checked under the cache's MAC
key) and entered into the counter's own cache; the texts not found are counted now and
stored. Selection then finds every count it asks for already known. A count is keyed by
the text's digest and the counter's identity (``BoundCounter.identity``: pin, tokenizer,
bound options), so another counter, revision or option set never reuses it.

Not stored: the reference estimate and ``calibrated`` counters (identity empty). A
calibrated count is ceil(characters x a ratio learned from provider usage); the ratio
moves between runs, so a stored count would go stale, and its base (the characters) is
known from the text at no cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lychd_core.blocks import Block, Layer
from lychd_core.projection.cache_protocol import ProjectionCacheStore
from lychd_core.tokens.counting import BoundCounter


@dataclass(frozen=True, slots=True)
class StoredCounts:
    """What one call did: counts read back from the cache, and counts made and stored."""

    read: int = 0
    stored: int = 0


def attach_counts(cache: ProjectionCacheStore | None, counter: BoundCounter, blocks: Iterable[Block]) -> StoredCounts:
    """Enter the stored counts of the Codex ``blocks``' texts into ``counter``; count and store the rest."""
    if cache is None or not counter.identity or counter.cache_chars == 0:
        return StoredCounts()
    pending: dict[str, str] = {}  # text digest -> text, for texts the counter does not know yet
    for block in blocks:
        text = block.text
        if block.layer is Layer.CODEX and 0 < len(text) <= counter.cache_chars and not counter.knows(text):
            pending.setdefault(_content_hash(block), text)
    if not pending:
        return StoredCounts()
    found = cache.token_counts(counter.identity, list(pending))
    for digest, value in found.items():
        if digest in pending:
            counter.enter(pending[digest], value)
    fresh = [(digest, counter.count(text)) for digest, text in pending.items() if digest not in found]
    if fresh:
        cache.remember_token_counts(counter.identity, fresh)
    return StoredCounts(len(found), len(fresh))


def _content_hash(block: Block) -> str:
    """``block.content_hash`` without pydantic's attribute look-up: a third of reading 800 stored
    counts in ``python benchmarks/bench_tokens.py`` (the stored-count warm goal, >= 50x, is not met)."""
    private = block.__pydantic_private__
    return str(private["_content_hash"]) if private else block.content_hash
