"""The view digest at a million memories (a test that would have failed before: the digest was one
``canonical_json`` value, which refuses more than a million arrays and raised ``TypeError``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any
from unittest import mock

from lychd_core import digests
from lychd_core.digests import MAX_CONTAINERS
from lychd_core.memory.tombstones import view_digest


def test_a_million_active_memories_have_a_digest_and_it_is_the_canonical_one() -> None:
    """Past canonical JSON's container bound (the old digest was one ``canonical_json`` value and
    raised ``TypeError`` here) the digest is the whole list's, hashed in pieces of one batch."""
    rows = [(f"m{i:07d}", 1, f"sha256:{i:064x}") for i in range(MAX_CONTAINERS + 1)]
    records: list[Any] = [SimpleNamespace(memory_id=i, revision=r, digest=d) for i, r, d in rows]
    pieces: list[int] = []
    streamed = digests.streamed_json_chunks

    def measured(value: object) -> Iterator[bytes]:
        for piece in streamed(value):
            pieces.append(len(piece))
            yield piece

    with mock.patch.object(digests, "streamed_json_chunks", measured):
        digest = view_digest(records)
    whole = json.dumps(rows, separators=(",", ":")).encode()
    assert digest == "sha256:" + hashlib.sha256(whole).hexdigest()
    assert sum(pieces) == len(whole) and max(pieces) < 1 << 20  # the whole array is about 95 MB
