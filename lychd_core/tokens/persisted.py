"""Token counts stored with projections: a warm run reads them instead of tokenizing again.

After the floor is projected, the Codex blocks' counts by the configured counter are read
from the projection cache and entered into the counter's own cache; selection then finds
every count it asks for already known. A count is keyed by the text's digest and the
counter's identity (``BoundCounter.identity``: pin, tokenizer, bound options), so another
counter, revision or option set never reuses it.

Two ways in, fastest first: the **count record** of this very list of texts (one query, one
MAC over all its counts, ``cache_counts.encode_record``), then, when there is none or it
fails its MAC, the per-text rows (one query per batch, one MAC each); the texts found in
neither are counted now and stored as rows, and a new record of the whole set is written.

Not stored: the reference estimate and ``calibrated`` counters (identity empty). A
calibrated count is ceil(characters x a ratio learned from provider usage); the ratio
moves between runs, so a stored count would go stale, and its base (the characters) is
known from the text at no cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lychd_core.blocks import Block, Layer
from lychd_core.projection.cache_counts import set_digest
from lychd_core.projection.cache_protocol import ProjectionCacheStore
from lychd_core.tokens.counting import BoundCounter


@dataclass(frozen=True, slots=True)
class StoredCounts:
    """What one call did: counts read back from the cache, counts made and stored, and whether a record served."""

    read: int = 0
    stored: int = 0
    from_record: bool = False


def attach_counts(cache: ProjectionCacheStore | None, counter: BoundCounter, blocks: Iterable[Block]) -> StoredCounts:
    """Enter the stored counts of the Codex ``blocks``' texts into ``counter``; count and store the rest."""
    if cache is None or not counter.identity or counter.cache_chars == 0:
        return StoredCounts()
    texts: dict[str, str] = {}  # text digest -> text, every Codex text the counter may remember
    for block in blocks:
        text = block.text
        if block.layer is Layer.CODEX and 0 < len(text) <= counter.cache_chars:
            texts.setdefault(_content_hash(block), text)
    pending = (
        {digest: text for digest, text in texts.items() if not counter.knows(text)} if counter.knows_any() else texts
    )
    if not pending:
        return StoredCounts()
    key = set_digest(texts)
    record = cache.count_record(counter.identity, key)
    if record is not None and len(record) == len(texts):  # the key fixes which digest each position counts
        counter.enter_many(zip(texts.values(), record, strict=True))
        return StoredCounts(len(pending), 0, True)
    found = cache.token_counts(counter.identity, list(pending))
    for digest, value in found.items():
        if digest in pending:
            counter.enter(pending[digest], value)
    fresh = [(digest, counter.count(text)) for digest, text in pending.items() if digest not in found]
    if fresh:
        cache.remember_token_counts(counter.identity, fresh)
    counts = [counter.known(text) for text in texts.values()]
    if None not in counts:  # none forgotten meanwhile: the record is whole
        cache.remember_count_record(counter.identity, key, [value for value in counts if value is not None])
    return StoredCounts(len(found), len(fresh))


def _content_hash(block: Block) -> str:
    """``block.content_hash`` without pydantic's attribute look-up (a third of the per-row warm path's cost
    of reading 800 stored counts in ``python benchmarks/bench_tokens.py``)."""
    private = block.__pydantic_private__
    return str(private["_content_hash"]) if private else block.content_hash
