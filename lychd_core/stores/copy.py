"""Copy a memory store to another backend and prove it arrived whole: equal index digests."""

from __future__ import annotations

from typing import Any

from lychd_core.memory.errors import StoreCopyError
from lychd_core.memory.protocol import MemoryStore


def copy_memory_store(source: MemoryStore, destination: MemoryStore) -> dict[str, Any]:
    """Copy every stored revision and tombstone (idempotent), then compare index digests.

    The destination may be empty or already hold exactly this content (a re-run); anything
    else makes the digests differ and is refused with :class:`StoreCopyError`.
    """
    records, stones = source.records(), source.tombstones()
    source_digest = source.rebuild_index().digest
    added = destination.add_many(records)
    new_stones = sum(destination.add_tombstone(stone) for stone in stones)
    destination_digest = destination.rebuild_index().digest
    if destination_digest != source_digest:
        raise StoreCopyError(
            f"after copying, the destination's index digest {destination_digest} differs from the source's "
            f"{source_digest}: the destination held other memories. Copy into an empty store"
        )
    return {
        "revisions": len(records),
        "tombstones": len(stones),
        "added_revisions": added,
        "added_tombstones": new_stones,
        "index_digest": source_digest,
    }
